-- Migration 4 (SQLite): what a topic's crawls learned about each host (store.Hosts,
-- HostYields): judged pages and how many were accepted. Kept in the store,
-- not per worker, so every worker and every restart shares it.
CREATE TABLE IF NOT EXISTS host_yield (
    topic    TEXT   NOT NULL,
    host     TEXT   NOT NULL,
    judged   BIGINT NOT NULL,
    accepted BIGINT NOT NULL,
    PRIMARY KEY (topic, host)
);
