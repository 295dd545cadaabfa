-- focuscrawl crawl store schema, version 1.
--
-- Written in SQL that SQLite and PostgreSQL both accept wherever that is
-- reasonable, so that a PostgreSQL backend can create the same tables:
--   * integers are BIGINT / INTEGER, floats DOUBLE PRECISION, strings TEXT;
--   * times are unix nanoseconds in BIGINT columns (0 = unset), never
--     engine-specific date types;
--   * booleans are INTEGER 0/1 (PostgreSQL could use SMALLINT or BOOLEAN);
--   * upserts in the Go code use INSERT ... ON CONFLICT, which both accept.
-- SQLite-specific spots are marked "SQLite:" below. The only one is BLOB,
-- which PostgreSQL spells BYTEA.
--
-- Every statement is idempotent (IF NOT EXISTS) so that a half-applied
-- migration can simply run again.

CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER NOT NULL PRIMARY KEY,
    applied_at BIGINT  NOT NULL
);

-- Generic named counters (PostgreSQL could use sequences instead). Used for
-- the per-topic frontier insertion sequence: name = 'frontier/' || topic.
CREATE TABLE IF NOT EXISTS sequences (
    name  TEXT   NOT NULL PRIMARY KEY,
    value BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS topics (
    name       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    yaml       BLOB    NOT NULL, -- SQLite: BYTEA in PostgreSQL
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

-- The frontier keeps every URL ever enqueued for a topic (done entries
-- included): that is what makes Enqueue deduplicate.
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
    seq         BIGINT           NOT NULL, -- insertion order, breaks priority ties (FIFO)
    claim_pos   INTEGER          NOT NULL DEFAULT 0, -- position within batch_id
    PRIMARY KEY (topic, url_hash)
);
-- ClaimBatch walks this index: queued entries of a topic, best first.
CREATE INDEX IF NOT EXISTS frontier_claim ON frontier (topic, state, priority DESC, seq);
-- Partial index (SQLite 3.8+ and PostgreSQL) over claimed entries only:
-- finding expired leases stays cheap however many entries are queued or done.
-- Queries must spell the condition literally (state = 'claimed') for SQLite
-- to use it.
CREATE INDEX IF NOT EXISTS frontier_lease ON frontier (topic, lease_until) WHERE state = 'claimed';
CREATE INDEX IF NOT EXISTS frontier_batch ON frontier (topic, batch_id);
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
    -- 1 once SaveParse has added the page's terms to term_df/topic_docs;
    -- guards against counting a retried parse twice.
    terms_counted INTEGER          NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, url_hash)
);
-- Unique: SavePage assigns seq = 1 + max(seq) of the crawl; this index both
-- serves that max and catches any bug that would hand out a seq twice.
CREATE UNIQUE INDEX IF NOT EXISTS pages_crawl_seq ON pages (crawl_id, seq);
CREATE INDEX IF NOT EXISTS pages_batch ON pages (topic, batch_id);
CREATE INDEX IF NOT EXISTS pages_final_hash ON pages (topic, final_hash);
CREATE INDEX IF NOT EXISTS pages_content_hash ON pages (topic, content_hash);
CREATE INDEX IF NOT EXISTS pages_decision ON pages (topic, decision, url_hash);

-- Page bodies and parse results, compressed (encoding names the codec).
CREATE TABLE IF NOT EXISTS blobs (
    topic    TEXT   NOT NULL,
    url_hash TEXT   NOT NULL,
    kind     TEXT   NOT NULL, -- 'body' or 'parse'
    encoding TEXT   NOT NULL, -- 'flate' (compress/flate, raw DEFLATE)
    size     BIGINT NOT NULL, -- uncompressed length
    data     BLOB   NOT NULL, -- SQLite: BYTEA in PostgreSQL
    PRIMARY KEY (topic, url_hash, kind),
    FOREIGN KEY (topic, url_hash) REFERENCES pages (topic, url_hash) ON DELETE CASCADE
);

CREATE TABLE IF NOT EXISTS links (
    topic    TEXT             NOT NULL,
    src      TEXT             NOT NULL, -- URL hash of the linking page
    dst      TEXT             NOT NULL, -- URL hash of the target
    dst_url  TEXT             NOT NULL DEFAULT '',
    anchor   TEXT             NOT NULL DEFAULT '',
    context  TEXT             NOT NULL DEFAULT '',
    score    DOUBLE PRECISION NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, src, dst)
);
CREATE INDEX IF NOT EXISTS links_dst ON links (topic, dst);

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
    docs  BIGINT NOT NULL -- parsed documents counted into term_df
);

CREATE TABLE IF NOT EXISTS models (
    topic      TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    version    INTEGER NOT NULL,
    data       BLOB    NOT NULL, -- SQLite: BYTEA in PostgreSQL
    created_at BIGINT  NOT NULL,
    PRIMARY KEY (topic, kind, version)
);
