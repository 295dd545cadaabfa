-- Migration 2: frontier counts that do not grow with the frontier.
--
-- FrontierStats (called after every claim, for the crawl's status) used to
-- count a topic's frontier rows: about a second at 10 M rows. Instead,
-- statement-level triggers append one row of per-state deltas per topic
-- and statement to frontier_counts (insert-only, so concurrent writers
-- never wait for each other), and FrontierStats sums a topic's rows and
-- folds them into one, so the sum stays short.

-- No frontier writes between the backfill below and the triggers taking over.
LOCK TABLE frontier IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE IF NOT EXISTS frontier_counts (
    topic   TEXT   NOT NULL,
    queued  BIGINT NOT NULL,
    claimed BIGINT NOT NULL,
    done    BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS frontier_counts_topic ON frontier_counts (topic);

-- The counts of the frontier as it is.
INSERT INTO frontier_counts (topic, queued, claimed, done)
SELECT topic, COUNT(*) FILTER (WHERE state = 'queued'), COUNT(*) FILTER (WHERE state = 'claimed'),
       COUNT(*) FILTER (WHERE state = 'done')
FROM frontier GROUP BY topic;

-- One function for the three statement triggers: +1 per new row, -1 per
-- old row, by topic and state; nothing is written for a statement that
-- changes no state (a priority raise).
CREATE OR REPLACE FUNCTION frontier_count_deltas() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO frontier_counts (topic, queued, claimed, done)
        SELECT topic, COUNT(*) FILTER (WHERE state = 'queued'), COUNT(*) FILTER (WHERE state = 'claimed'),
               COUNT(*) FILTER (WHERE state = 'done')
        FROM new_rows GROUP BY topic;
    ELSIF TG_OP = 'DELETE' THEN
        INSERT INTO frontier_counts (topic, queued, claimed, done)
        SELECT topic, -COUNT(*) FILTER (WHERE state = 'queued'), -COUNT(*) FILTER (WHERE state = 'claimed'),
               -COUNT(*) FILTER (WHERE state = 'done')
        FROM old_rows GROUP BY topic;
    ELSE
        INSERT INTO frontier_counts (topic, queued, claimed, done)
        SELECT topic, q, c, d FROM (
            SELECT topic, COALESCE(SUM(n) FILTER (WHERE state = 'queued'), 0) AS q,
                   COALESCE(SUM(n) FILTER (WHERE state = 'claimed'), 0) AS c,
                   COALESCE(SUM(n) FILTER (WHERE state = 'done'), 0) AS d
            FROM (SELECT topic, state, 1 AS n FROM new_rows UNION ALL SELECT topic, state, -1 FROM old_rows) AS rows
            GROUP BY topic) AS deltas
        WHERE q <> 0 OR c <> 0 OR d <> 0;
    END IF;
    RETURN NULL;
END $$;

DROP TRIGGER IF EXISTS frontier_counts_insert ON frontier;
CREATE TRIGGER frontier_counts_insert AFTER INSERT ON frontier
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_count_deltas();
DROP TRIGGER IF EXISTS frontier_counts_update ON frontier;
CREATE TRIGGER frontier_counts_update AFTER UPDATE ON frontier
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_count_deltas();
DROP TRIGGER IF EXISTS frontier_counts_delete ON frontier;
CREATE TRIGGER frontier_counts_delete AFTER DELETE ON frontier
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION frontier_count_deltas();
