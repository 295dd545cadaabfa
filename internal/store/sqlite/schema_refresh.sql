-- Migration 3: revisit bookkeeping of incremental refresh (issue 7).
-- One row per page that has been claimed for a revisit at least once; a
-- page without a row is due at once. Rows go with their page.
CREATE TABLE IF NOT EXISTS refresh_state (
    topic       TEXT    NOT NULL,
    url_hash    TEXT    NOT NULL,
    next_at     BIGINT  NOT NULL DEFAULT 0, -- unix ns; 0 = due now; -1 = never (gone)
    interval_ns BIGINT  NOT NULL DEFAULT 0, -- adaptive base interval
    checks      INTEGER NOT NULL DEFAULT 0,
    changes     INTEGER NOT NULL DEFAULT 0,
    batch_id    TEXT    NOT NULL DEFAULT '', -- refresh claim holding the page
    lease_until BIGINT  NOT NULL DEFAULT 0,
    PRIMARY KEY (topic, url_hash),
    FOREIGN KEY (topic, url_hash) REFERENCES pages (topic, url_hash) ON DELETE CASCADE
);
CREATE INDEX IF NOT EXISTS refresh_state_batch ON refresh_state (topic, batch_id);
CREATE INDEX IF NOT EXISTS refresh_state_next ON refresh_state (topic, next_at);
