-- Migration 7 (SQLite): when each fence was last raised (Unix nanoseconds,
-- the raising worker's clock), so PruneFences can drop fences no live
-- attempt can be held back by: the table gained a row per crawl slice and
-- was cleared only by ResetTopic. Fences raised before this migration count
-- as raised now, since their attempts may still run.
ALTER TABLE fences ADD COLUMN raised_at BIGINT NOT NULL DEFAULT 0;
UPDATE fences SET raised_at = unixepoch() * 1000000000;
