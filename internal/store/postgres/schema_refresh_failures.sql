-- Migration 7 (PostgreSQL): how many claims of a page in a row ran out
-- without an outcome (their refresh batch failed, or its workflow died), so
-- a page whose batch keeps failing is claimed again after a growing delay
-- (store.RefreshClaim.RetryDelay) instead of at every lease's end.
ALTER TABLE refresh_state ADD COLUMN IF NOT EXISTS failures INTEGER NOT NULL DEFAULT 0;
