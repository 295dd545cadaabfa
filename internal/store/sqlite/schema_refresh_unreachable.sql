-- Migration 15 (SQLite): how many revisits of a page in a row failed
-- because its host was down (timeout, connection refused, 5xx; not a 429
-- or an answer with Retry-After), and when the first
-- of them was: store.RefreshInfo.Unreachable. An accepted page whose host
-- stays down is retried less and less often and, after
-- refresh.drop_unreachable_after, leaves the index until it answers again
-- (kept and revisited meanwhile); it
-- was retried every refresh.min_interval, and searchable, for ever. Rows
-- of earlier releases read 0 (no failure counted yet).
ALTER TABLE refresh_state ADD COLUMN unreachable INTEGER NOT NULL DEFAULT 0;
ALTER TABLE refresh_state ADD COLUMN unreachable_since BIGINT NOT NULL DEFAULT 0; -- unix ns; 0 = none
