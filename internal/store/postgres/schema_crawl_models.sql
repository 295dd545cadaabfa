-- Migration 12 (PostgreSQL): the learned link model and rank versions the
-- crawl's workflow last chose (store.Crawl.LinkModelVersion, RankVersion). A
-- running crawl slice polls its crawl row and ends when a version its
-- predictor reads is newer than the one it started with, so a learning or
-- ranking round no longer waits for every slice to end first (the slices
-- keep fetching while it runs).
ALTER TABLE crawls ADD COLUMN IF NOT EXISTS link_model_version INTEGER NOT NULL DEFAULT 0;
ALTER TABLE crawls ADD COLUMN IF NOT EXISTS rank_version INTEGER NOT NULL DEFAULT 0;
