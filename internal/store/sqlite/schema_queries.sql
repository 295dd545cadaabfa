-- Migration: search queries that found nothing (seed 003: a user's search
-- terms with no hits become candidate keywords of the topic). One row per
-- (topic, query); count and last grow on every new report.
CREATE TABLE IF NOT EXISTS no_result_queries (
    topic   TEXT   NOT NULL,
    query   TEXT   NOT NULL,
    count   BIGINT NOT NULL,
    last_at BIGINT NOT NULL, -- unix nanoseconds
    PRIMARY KEY (topic, query)
);
CREATE INDEX IF NOT EXISTS no_result_queries_count ON no_result_queries (topic, count DESC, last_at DESC);
