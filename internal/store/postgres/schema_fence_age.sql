-- Migration 6 (PostgreSQL): when each fence was last raised (Unix
-- nanoseconds, the raising worker's clock), so PruneFences can drop fences
-- no live attempt can be held back by: the table gained a row per crawl
-- slice and was cleared only by ResetTopic. Fences raised before this
-- migration count as raised now, since their attempts may still run.
ALTER TABLE fences ADD COLUMN IF NOT EXISTS raised_at BIGINT NOT NULL DEFAULT 0;
UPDATE fences SET raised_at = (extract(epoch FROM now()) * 1000000000)::BIGINT WHERE raised_at = 0;
