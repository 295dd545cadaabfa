-- Migration 18 (SQLite): each host's best queued entry, for claims.
--
-- A claim takes the best queued entries of the hosts it is not already
-- serving (ClaimRequest.ExcludeHosts), at most MaxPerHost each. Walking the
-- queue in claim order (frontier_claim) read every entry of the excluded
-- hosts ranked above the ones it took: on a site-focused crawl, where the
-- busy hosts hold most of the queue, a claim grew with the frontier
-- (158 ms at 100,000 entries of four busy hosts, inside the write
-- transaction every writer waits for). The claim now walks frontier_hosts
-- — one row per host with queued entries, its best entry's priority, seq
-- and URL hash — in claim order, so an excluded host costs one row, and
-- reads a host's next entries through frontier_host_state
-- (sqlshared.PickByHost). That index replaces frontier_host (topic, host),
-- whose readers (a host's entry count, DemoteQueued) it serves as well:
-- one index on the host per frontier write, not two.
--
-- Row triggers keep the rows, whichever statement writes the frontier:
-- an entry that becomes queued (inserted, requeued, raised) replaces its
-- host's row if it comes first in claim order (priority DESC, seq ASC); an
-- entry that was its host's best and leaves the queue or sinks makes the
-- row be read again from the queue, or deleted when the host has nothing
-- queued. seq is unique within a topic, so (priority, seq) names the entry
-- a row holds. No statement writes the frontier with INSERT OR REPLACE
-- (which fires no delete trigger without recursive_triggers), and none
-- changes an entry's topic, host or url_hash, which the update triggers do
-- not watch: a statement that did would have to move the host's row too.

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

-- (Emptied first: a test that winds a database back to an older version
-- runs this again over the rows the triggers kept.)
DELETE FROM frontier_hosts;
INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
SELECT topic, host, priority, seq, url_hash FROM (
    SELECT topic, host, priority, seq, url_hash,
        ROW_NUMBER() OVER (PARTITION BY topic, host ORDER BY priority DESC, seq ASC) AS n
    FROM frontier WHERE state = 'queued')
WHERE n = 1;

CREATE TRIGGER IF NOT EXISTS frontier_hosts_insert AFTER INSERT ON frontier
WHEN NEW.state = 'queued' BEGIN
    INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
    VALUES (NEW.topic, NEW.host, NEW.priority, NEW.seq, NEW.url_hash)
    ON CONFLICT (topic, host) DO UPDATE SET priority = excluded.priority, seq = excluded.seq, url_hash = excluded.url_hash
    WHERE excluded.priority > frontier_hosts.priority
       OR (excluded.priority = frontier_hosts.priority AND excluded.seq < frontier_hosts.seq);
END;

-- An update fires two triggers; in either order they leave the right row.
-- The old entry held its host's row (and the new one did not replace it
-- first): read the row again from the queue, which holds the new entry if
-- it is queued.
CREATE TRIGGER IF NOT EXISTS frontier_hosts_update_old AFTER UPDATE OF state, priority, seq ON frontier
WHEN OLD.state = 'queued' AND EXISTS (SELECT 1 FROM frontier_hosts
    WHERE topic = OLD.topic AND host = OLD.host AND priority = OLD.priority AND seq = OLD.seq) BEGIN
    DELETE FROM frontier_hosts WHERE topic = OLD.topic AND host = OLD.host;
    INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
    SELECT topic, host, priority, seq, url_hash FROM frontier
    WHERE topic = OLD.topic AND host = OLD.host AND state = 'queued'
    ORDER BY priority DESC, seq ASC LIMIT 1;
END;

-- The new entry is queued: it takes its host's row if it comes first.
CREATE TRIGGER IF NOT EXISTS frontier_hosts_update_new AFTER UPDATE OF state, priority, seq ON frontier
WHEN NEW.state = 'queued' BEGIN
    INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
    VALUES (NEW.topic, NEW.host, NEW.priority, NEW.seq, NEW.url_hash)
    ON CONFLICT (topic, host) DO UPDATE SET priority = excluded.priority, seq = excluded.seq, url_hash = excluded.url_hash
    WHERE excluded.priority > frontier_hosts.priority
       OR (excluded.priority = frontier_hosts.priority AND excluded.seq < frontier_hosts.seq);
END;

CREATE TRIGGER IF NOT EXISTS frontier_hosts_delete AFTER DELETE ON frontier
WHEN OLD.state = 'queued' AND EXISTS (SELECT 1 FROM frontier_hosts
    WHERE topic = OLD.topic AND host = OLD.host AND priority = OLD.priority AND seq = OLD.seq) BEGIN
    DELETE FROM frontier_hosts WHERE topic = OLD.topic AND host = OLD.host;
    INSERT INTO frontier_hosts (topic, host, priority, seq, url_hash)
    SELECT topic, host, priority, seq, url_hash FROM frontier
    WHERE topic = OLD.topic AND host = OLD.host AND state = 'queued'
    ORDER BY priority DESC, seq ASC LIMIT 1;
END;
