-- Migration 18 (PostgreSQL): each host's best queued entry, for claims.
--
-- A claim takes the best queued entries of the hosts it is not already
-- serving (ClaimRequest.ExcludeHosts), at most MaxPerHost each. Walking the
-- queue in claim order (frontier_queue) read every entry of the excluded
-- hosts ranked above the ones it took: on a site-focused crawl, where the
-- busy hosts hold most of the queue, a claim grew with the frontier (74 ms
-- at 100,000 entries of four busy hosts). As store/sqlite's migration 18,
-- a claim now walks frontier_hosts — one row per host with queued entries,
-- its best entry's priority, seq and URL hash — in claim order, so an
-- excluded host costs one row, and reads a host's next entries through
-- frontier_host_state (sqlshared.PickByHostLocking). That index replaces
-- frontier_host (topic, host), whose readers (a host's entry count,
-- DemoteQueued) it serves as well.
--
-- What differs from SQLite is who may write at once. Several workers'
-- READ COMMITTED transactions change one host's entries concurrently, and
-- each sees only its own changes and what was committed: a head row that a
-- trigger recomputed from what its transaction saw goes stale when another
-- transaction's change to the same host commits later (a claim of the head
-- entry recomputes the head as the host's next entry while another worker's
-- better new entry is not committed yet; two claims of one host's first two
-- entries each leave the other's entry as the head). So the heads are kept
-- at commit, under a lock per head row:
--
--   - statement triggers (frontier_hosts_mark) note what each statement
--     did to the queue in a transaction-local setting
--     (focuscrawl.frontier_hosts_dirty, a JSON array): the hosts whose
--     entries left the queue or fell back in it, and each host's best
--     entry that joined the queue or rose in it; the first such row of a
--     transaction also queues one deferred event (the WHEN clause of
--     frontier_hosts_sync_*, which sets focuscrawl.frontier_hosts_event),
--     not one per row;
--   - at commit, frontier_hosts_sync locks the noted hosts' head rows in
--     (topic, host) order with one upsert, which also makes a host's best
--     new entry its head if it comes first; then, in a new statement and
--     so with a new snapshot (READ COMMITTED), it reads the best queued
--     entry of each host whose entries left or fell, and writes it, or
--     deletes the row when the host has nothing queued. A transaction
--     that only adds entries (an enqueue) reads no frontier rows there.
--
-- Every transaction that changes a host's queued entries brings that
-- host's head up to date while holding its row lock — from the locked
-- row's newest version and its own new entries, or read again from the
-- queue — after every earlier holder committed, and holds the lock until
-- it commits itself: the row it locks is exact for what was committed
-- before, and the last one to commit saw all the others' changes, so a
-- head is never stale after commit. The
-- locks are held only for the commit (not for a whole processing group's
-- transaction), are taken in one order by every transaction, and a
-- transaction holding one waits for nothing but other head rows — never
-- for a frontier row, an advisory lock or a transaction still running its
-- statements — so they cannot deadlock. Claims read frontier_hosts without
-- locking it and lock the entries they take (FOR UPDATE SKIP LOCKED), as
-- before; they wait on head rows only in their own commit, and only for
-- another commit of the same hosts.
--
-- No statement changes an entry's topic or url_hash; one that changed its
-- host would still be right (an entry's old and new host are both noted).

-- No frontier writes between the backfill below and the triggers taking over.
LOCK TABLE frontier IN SHARE ROW EXCLUSIVE MODE;

DROP INDEX IF EXISTS frontier_host;
CREATE INDEX IF NOT EXISTS frontier_host_state ON frontier (topic, host, state, priority DESC, seq);

CREATE TABLE IF NOT EXISTS frontier_hosts (
    topic    TEXT             NOT NULL,
    host     TEXT             NOT NULL,
    priority DOUBLE PRECISION NOT NULL, -- of the host's best queued entry
    seq      BIGINT           NOT NULL, -- of the same entry
    url_hash TEXT             NOT NULL, -- the same entry
    PRIMARY KEY (topic, host)
);
CREATE INDEX IF NOT EXISTS frontier_hosts_claim ON frontier_hosts (topic, priority DESC, seq);

INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
SELECT DISTINCT ON (topic, host) topic, host, priority, seq, url_hash
FROM frontier WHERE state = 'queued'
ORDER BY topic, host, priority DESC, seq ASC
ON CONFLICT (topic, host) DO NOTHING;

-- What a statement did to the queue, noted for the commit: the hosts of
-- queued entries that left the queue or fell back in it, as [topic, host]
-- (their heads are read again), and for each host the best of the entries
-- that joined the queue or rose in it, as [topic, host, priority, seq,
-- url_hash] (a head can only become that). An update that leaves a queued
-- entry where it was (a link score, a priority set to what it was) notes
-- nothing. Updates are matched by (topic, url_hash), which no statement
-- changes; an entry moved to another host counts as leaving the old one.
--
-- A priority goes into the JSON as float8out writes it, which is exact
-- (the shortest text that reads back as the same float8) only while
-- extra_float_digits is above 0, the default; a session that lowers it
-- notes the hosts of its new entries to be read again instead.
CREATE OR REPLACE FUNCTION frontier_hosts_mark() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    dirty jsonb;
    exact boolean := current_setting('extra_float_digits')::int > 0;
BEGIN
    IF TG_OP = 'INSERT' AND NOT exact THEN
        SELECT jsonb_agg(DISTINCT jsonb_build_array(topic, host)) INTO dirty
        FROM new_rows WHERE state = 'queued';
    ELSIF TG_OP = 'UPDATE' AND NOT exact THEN
        SELECT jsonb_agg(DISTINCT jsonb_build_array(topic, host)) INTO dirty FROM (
            SELECT topic, host FROM new_rows WHERE state = 'queued'
            UNION ALL
            SELECT topic, host FROM old_rows WHERE state = 'queued') AS changed;
    ELSIF TG_OP = 'INSERT' THEN
        SELECT jsonb_agg(jsonb_build_array(topic, host, priority, seq, url_hash)) INTO dirty FROM (
            SELECT DISTINCT ON (topic, host) topic, host, priority, seq, url_hash FROM new_rows
            WHERE state = 'queued' ORDER BY topic, host, priority DESC, seq ASC) AS joined;
    ELSIF TG_OP = 'DELETE' THEN
        SELECT jsonb_agg(DISTINCT jsonb_build_array(topic, host)) INTO dirty
        FROM old_rows WHERE state = 'queued';
    ELSE
        SELECT jsonb_agg(x) INTO dirty FROM (
            SELECT DISTINCT jsonb_build_array(o.topic, o.host) AS x
            FROM old_rows o JOIN new_rows n ON n.topic = o.topic AND n.url_hash = o.url_hash
            WHERE o.state = 'queued' AND (n.state <> 'queued' OR n.host <> o.host
                OR n.priority < o.priority OR (n.priority = o.priority AND n.seq > o.seq))
            UNION ALL
            SELECT jsonb_build_array(topic, host, priority, seq, url_hash) FROM (
                SELECT DISTINCT ON (n.topic, n.host) n.topic, n.host, n.priority, n.seq, n.url_hash
                FROM old_rows o JOIN new_rows n ON n.topic = o.topic AND n.url_hash = o.url_hash
                WHERE n.state = 'queued' AND (o.state <> 'queued' OR n.host <> o.host
                    OR n.priority > o.priority OR (n.priority = o.priority AND n.seq < o.seq))
                ORDER BY n.topic, n.host, n.priority DESC, n.seq ASC) AS rose) AS moved;
    END IF;
    IF dirty IS NOT NULL THEN
        PERFORM set_config('focuscrawl.frontier_hosts_dirty',
            (COALESCE(NULLIF(current_setting('focuscrawl.frontier_hosts_dirty', true), '')::jsonb, '[]'::jsonb) || dirty)::text,
            true);
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS frontier_hosts_mark_insert ON frontier;
CREATE TRIGGER frontier_hosts_mark_insert AFTER INSERT ON frontier
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_hosts_mark();
DROP TRIGGER IF EXISTS frontier_hosts_mark_update ON frontier;
CREATE TRIGGER frontier_hosts_mark_update AFTER UPDATE ON frontier
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_hosts_mark();
DROP TRIGGER IF EXISTS frontier_hosts_mark_delete ON frontier;
CREATE TRIGGER frontier_hosts_mark_delete AFTER DELETE ON frontier
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_hosts_mark();

-- At commit: the noted hosts' heads, under their row locks.
CREATE OR REPLACE FUNCTION frontier_hosts_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    dirty jsonb := NULLIF(current_setting('focuscrawl.frontier_hosts_dirty', true), '')::jsonb;
BEGIN
    -- Cleared first: a later change in this transaction (after SET
    -- CONSTRAINTS ... IMMEDIATE) notes its hosts and queues an event anew.
    PERFORM set_config('focuscrawl.frontier_hosts_event', '', true);
    PERFORM set_config('focuscrawl.frontier_hosts_dirty', '', true);
    IF dirty IS NULL THEN
        RETURN NULL;
    END IF;
    -- Every noted host's head row, locked in one order for all
    -- transactions; ON CONFLICT DO UPDATE locks a row in conflict (waiting
    -- for its holder to commit) before its WHERE is evaluated, on the
    -- row's newest version, and copes with a row deleted meanwhile.
    --  - A host whose entries only joined the queue or rose in it: its head
    --    is the locked row (exact for what was committed before the lock)
    --    or this transaction's best new entry, whichever comes first.
    --  - A host with an entry that left or fell: a placeholder (seq -1)
    --    that changes no row; the head is read again below.
    INSERT INTO frontier_hosts AS h (topic, host, priority, seq, url_hash)
    SELECT topic, host, priority, seq, url_hash FROM (
        SELECT DISTINCT ON (topic COLLATE "C", host COLLATE "C") topic, host,
            CASE WHEN again THEN 0 ELSE priority END AS priority,
            CASE WHEN again THEN -1 ELSE seq END AS seq,
            CASE WHEN again THEN '' ELSE url_hash END AS url_hash
        FROM (
            SELECT e->>0 AS topic, e->>1 AS host, (e->>2)::float8 AS priority, (e->>3)::bigint AS seq, e->>4 AS url_hash,
                bool_or(jsonb_array_length(e) = 2) OVER (PARTITION BY e->>0, e->>1) AS again
            FROM jsonb_array_elements(dirty) AS e) AS noted
        ORDER BY topic COLLATE "C", host COLLATE "C", priority DESC NULLS LAST, seq ASC) AS d
    ORDER BY topic COLLATE "C", host COLLATE "C"
    ON CONFLICT (topic, host) DO UPDATE SET priority = excluded.priority, seq = excluded.seq, url_hash = excluded.url_hash
    WHERE excluded.seq >= 0
        AND (excluded.priority > h.priority OR (excluded.priority = h.priority AND excluded.seq < h.seq));
    -- Only when some host's entries left or fell: an enqueue's commit
    -- skips the statement (planned at each call, about half the sync's
    -- time). strict: lax mode would unwrap each noted array and never
    -- find one of size 2.
    IF jsonb_path_exists(dirty, 'strict $[*] ? (@.size() == 2)') THEN
        -- The heads read again, in a new statement and so with a snapshot
        -- taken after every lock above was granted: it holds what each earlier
        -- holder committed.
        WITH d AS (
            SELECT DISTINCT e->>0 AS topic, e->>1 AS host FROM jsonb_array_elements(dirty) AS e
            WHERE jsonb_array_length(e) = 2),
        best AS (
            SELECT d.topic, d.host, b.priority, b.seq, b.url_hash FROM d LEFT JOIN LATERAL (
                -- (SELECT 'queued'): frontier_queue's predicate then cannot be
                -- proven, so no plan walks the topic's queue filtering the host
                -- (the planner's pick on a table without statistics: 10,000
                -- rows per recomputed host behind four busy hosts), and
                -- frontier_host_state still orders the host's queued entries.
                SELECT f.priority, f.seq, f.url_hash FROM frontier f
                WHERE f.topic = d.topic AND f.host = d.host AND f.state = (SELECT 'queued'::text)
                ORDER BY f.priority DESC, f.seq ASC LIMIT 1) AS b ON TRUE),
        gone AS (
            DELETE FROM frontier_hosts h USING best
            WHERE h.topic = best.topic AND h.host = best.host AND best.seq IS NULL)
        UPDATE frontier_hosts h SET priority = best.priority, seq = best.seq, url_hash = best.url_hash
        FROM best
        WHERE h.topic = best.topic AND h.host = best.host AND best.seq IS NOT NULL
            AND (h.priority, h.seq, h.url_hash) IS DISTINCT FROM (best.priority, best.seq, best.url_hash);
    END IF;
    RETURN NULL;
END $$;

-- One deferred event per transaction: the WHEN clause queues an event for
-- the first row that can change a head and marks the transaction
-- (set_config returns the value it sets), so the rows after it queue none.
DROP TRIGGER IF EXISTS frontier_hosts_sync_insert ON frontier;
CREATE CONSTRAINT TRIGGER frontier_hosts_sync_insert AFTER INSERT ON frontier
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (NEW.state = 'queued'
        AND CASE WHEN current_setting('focuscrawl.frontier_hosts_event', true) = 'queued' THEN false
            ELSE set_config('focuscrawl.frontier_hosts_event', 'queued', true) = 'queued' END)
    EXECUTE FUNCTION frontier_hosts_sync();
DROP TRIGGER IF EXISTS frontier_hosts_sync_update ON frontier;
CREATE CONSTRAINT TRIGGER frontier_hosts_sync_update AFTER UPDATE ON frontier
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN ((OLD.state = 'queued' OR NEW.state = 'queued')
        AND CASE WHEN current_setting('focuscrawl.frontier_hosts_event', true) = 'queued' THEN false
            ELSE set_config('focuscrawl.frontier_hosts_event', 'queued', true) = 'queued' END)
    EXECUTE FUNCTION frontier_hosts_sync();
DROP TRIGGER IF EXISTS frontier_hosts_sync_delete ON frontier;
CREATE CONSTRAINT TRIGGER frontier_hosts_sync_delete AFTER DELETE ON frontier
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.state = 'queued'
        AND CASE WHEN current_setting('focuscrawl.frontier_hosts_event', true) = 'queued' THEN false
            ELSE set_config('focuscrawl.frontier_hosts_event', 'queued', true) = 'queued' END)
    EXECUTE FUNCTION frontier_hosts_sync();
