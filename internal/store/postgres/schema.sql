-- focuscrawl crawl store schema for PostgreSQL, migration 1.
--
-- The same tables and columns as store/sqlite (its migrations 1-3), with
-- PostgreSQL types (BYTEA) and indexes chosen for many concurrent workers
-- and frontiers of tens of millions of rows. Times are unix nanoseconds in
-- BIGINT columns (0 = unset); booleans are INTEGER 0/1. Blob and model data
-- arrive compressed from the worker, so PostgreSQL is told not to compress
-- them again (STORAGE EXTERNAL).

-- Frontier insertion order (the FIFO tie-break of equal priorities). One
-- sequence for all topics: only the order within a topic matters.
CREATE SEQUENCE IF NOT EXISTS frontier_seq;

CREATE TABLE IF NOT EXISTS topics (
    name       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    yaml       BYTEA   NOT NULL,
    hash       TEXT    NOT NULL, -- SHA-256 of yaml, hex
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (name, version)
);

CREATE TABLE IF NOT EXISTS crawls (
    id            TEXT    NOT NULL PRIMARY KEY, -- Temporal workflow ID
    topic         TEXT    NOT NULL,
    topic_version INTEGER NOT NULL,
    state         TEXT    NOT NULL,
    started_at    BIGINT  NOT NULL,
    updated_at    BIGINT  NOT NULL
);
CREATE INDEX IF NOT EXISTS crawls_topic ON crawls (topic, started_at);
CREATE INDEX IF NOT EXISTS crawls_started ON crawls (started_at);

-- Every URL ever enqueued for a topic (done entries included): that is what
-- makes Enqueue deduplicate.
CREATE TABLE IF NOT EXISTS frontier (
    topic       TEXT             NOT NULL,
    url_hash    TEXT             NOT NULL,
    url         TEXT             NOT NULL,
    host        TEXT             NOT NULL,
    priority    DOUBLE PRECISION NOT NULL,
    depth       INTEGER          NOT NULL DEFAULT 0,
    parent_hash TEXT             NOT NULL DEFAULT '',
    parent_url  TEXT             NOT NULL DEFAULT '',
    anchor      TEXT             NOT NULL DEFAULT '',
    anchor_path TEXT             NOT NULL DEFAULT '',
    link_score  DOUBLE PRECISION NOT NULL DEFAULT 0,
    strategy    TEXT             NOT NULL DEFAULT '',
    state       TEXT             NOT NULL DEFAULT 'queued',
    batch_id    TEXT             NOT NULL DEFAULT '',
    lease_until BIGINT           NOT NULL DEFAULT 0,
    attempts    INTEGER          NOT NULL DEFAULT 0,
    crawl_id    TEXT             NOT NULL DEFAULT '',
    seq         BIGINT           NOT NULL DEFAULT nextval('frontier_seq'),
    claim_pos   INTEGER          NOT NULL DEFAULT 0, -- position within batch_id
    PRIMARY KEY (topic, url_hash)
);
-- ClaimBatch walks this partial index: only queued entries are in it, best
-- first, so the cost of a claim depends on the batch size, not on how many
-- entries the frontier has claimed or done. Queries must spell the
-- condition literally (state = 'queued') for the planner to use it.
CREATE INDEX IF NOT EXISTS frontier_queue ON frontier (topic, priority DESC, seq) WHERE state = 'queued';
-- Claimed entries only: finding expired leases stays cheap at any size.
CREATE INDEX IF NOT EXISTS frontier_lease ON frontier (topic, lease_until) WHERE state = 'claimed';
-- Entries of a batch; the queue's own entries (batch_id '') are left out.
CREATE INDEX IF NOT EXISTS frontier_batch ON frontier (topic, batch_id) WHERE batch_id <> '';
-- Enqueue's per-host cap counts a host's entries.
CREATE INDEX IF NOT EXISTS frontier_host ON frontier (topic, host);

CREATE TABLE IF NOT EXISTS pages (
    topic         TEXT             NOT NULL,
    url_hash      TEXT             NOT NULL,
    url           TEXT             NOT NULL,
    final_url     TEXT             NOT NULL DEFAULT '',
    final_hash    TEXT             NOT NULL DEFAULT '',
    crawl_id      TEXT             NOT NULL,
    batch_id      TEXT             NOT NULL DEFAULT '',
    seq           BIGINT           NOT NULL, -- 1-based fetch order within crawl_id
    depth         INTEGER          NOT NULL DEFAULT 0,
    parent_url    TEXT             NOT NULL DEFAULT '',
    anchor_path   TEXT             NOT NULL DEFAULT '',
    link_score    DOUBLE PRECISION NOT NULL DEFAULT 0,
    link_strategy TEXT             NOT NULL DEFAULT '',
    status        INTEGER          NOT NULL DEFAULT 0,
    error_class   TEXT             NOT NULL DEFAULT '',
    error_msg     TEXT             NOT NULL DEFAULT '',
    content_type  TEXT             NOT NULL DEFAULT '',
    charset       TEXT             NOT NULL DEFAULT '',
    etag          TEXT             NOT NULL DEFAULT '',
    last_modified TEXT             NOT NULL DEFAULT '',
    content_hash  TEXT             NOT NULL DEFAULT '',
    bytes         BIGINT           NOT NULL DEFAULT 0,
    fetched_at    BIGINT           NOT NULL DEFAULT 0,
    title         TEXT             NOT NULL DEFAULT '',
    lang          TEXT             NOT NULL DEFAULT '',
    relevance     DOUBLE PRECISION NOT NULL DEFAULT 0,
    filter_name   TEXT             NOT NULL DEFAULT '',
    decision      TEXT             NOT NULL DEFAULT '',
    reason        TEXT             NOT NULL DEFAULT '',
    is_indexed    INTEGER          NOT NULL DEFAULT 0,
    hub           DOUBLE PRECISION NOT NULL DEFAULT 0,
    authority     DOUBLE PRECISION NOT NULL DEFAULT 0,
    ipagerank     DOUBLE PRECISION NOT NULL DEFAULT 0,
    terms_counted INTEGER          NOT NULL DEFAULT 0, -- 1 once SaveParse counted the page's terms
    PRIMARY KEY (topic, url_hash)
);
-- Unique: SavePage assigns seq = 1 + max(seq) of the crawl; this index both
-- serves that max and catches any bug that would hand out a seq twice.
CREATE UNIQUE INDEX IF NOT EXISTS pages_crawl_seq ON pages (crawl_id, seq);
CREATE INDEX IF NOT EXISTS pages_batch ON pages (topic, batch_id);
CREATE INDEX IF NOT EXISTS pages_final_hash ON pages (topic, final_hash);
CREATE INDEX IF NOT EXISTS pages_content_hash ON pages (topic, content_hash);
CREATE INDEX IF NOT EXISTS pages_decision ON pages (topic, decision, url_hash);

CREATE TABLE IF NOT EXISTS blobs (
    topic    TEXT   NOT NULL,
    url_hash TEXT   NOT NULL,
    kind     TEXT   NOT NULL, -- 'body' or 'parse'
    encoding TEXT   NOT NULL, -- 'flate' (package codec)
    size     BIGINT NOT NULL, -- uncompressed length
    data     BYTEA  NOT NULL,
    PRIMARY KEY (topic, url_hash, kind),
    FOREIGN KEY (topic, url_hash) REFERENCES pages (topic, url_hash) ON DELETE CASCADE
);
ALTER TABLE blobs ALTER COLUMN data SET STORAGE EXTERNAL;

-- The crawl graph. Edges are read by (topic, src, dst) ranges (the primary
-- key) and in-anchors by (topic, dst).
CREATE TABLE IF NOT EXISTS links (
    topic    TEXT             NOT NULL,
    src      TEXT             NOT NULL,
    dst      TEXT             NOT NULL,
    dst_url  TEXT             NOT NULL DEFAULT '',
    anchor   TEXT             NOT NULL DEFAULT '',
    context  TEXT             NOT NULL DEFAULT '',
    score    DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, src, dst)
);
CREATE INDEX IF NOT EXISTS links_dst ON links (topic, dst, src);

-- Politeness is per host across all topics and workers.
CREATE TABLE IF NOT EXISTS hosts (
    host            TEXT   NOT NULL PRIMARY KEY,
    next_allowed_at BIGINT NOT NULL -- unix nanoseconds
);

CREATE TABLE IF NOT EXISTS term_df (
    topic TEXT   NOT NULL,
    term  TEXT   NOT NULL,
    df    BIGINT NOT NULL,
    PRIMARY KEY (topic, term)
);

CREATE TABLE IF NOT EXISTS topic_docs (
    topic TEXT   NOT NULL PRIMARY KEY,
    docs  BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS models (
    topic      TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    data       BYTEA   NOT NULL,
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (topic, kind, version)
);

CREATE TABLE IF NOT EXISTS no_result_queries (
    topic   TEXT   NOT NULL,
    query   TEXT   NOT NULL,
    count   BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (topic, query)
);
CREATE INDEX IF NOT EXISTS no_result_queries_count ON no_result_queries (topic, count DESC, last_at DESC);

CREATE TABLE IF NOT EXISTS refresh_state (
    topic       TEXT    NOT NULL,
    url_hash    TEXT    NOT NULL,
    next_at     BIGINT  NOT NULL DEFAULT 0, -- unix ns; 0 = due now; -1 = never (gone)
    interval_ns BIGINT  NOT NULL DEFAULT 0,
    checks      INTEGER NOT NULL DEFAULT 0,
    changes     INTEGER NOT NULL DEFAULT 0,
    batch_id    TEXT    NOT NULL DEFAULT '',
    lease_until BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, url_hash),
    FOREIGN KEY (topic, url_hash) REFERENCES pages (topic, url_hash) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS refresh_state_batch ON refresh_state (topic, batch_id);
CREATE INDEX IF NOT EXISTS refresh_state_next ON refresh_state (topic, next_at);
