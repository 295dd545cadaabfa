-- Migration 14 (SQLite): how many revisits in a row found a page dropped
-- (gone, unparsable, or no longer accepted): store.RefreshInfo.Dropped. A
-- refresh checks such a page again a few times (refresh.recheck_dropped)
-- before giving it up, where one bad answer — a deploy's 404s, a maintenance
-- page — took it out of the topic for good.
ALTER TABLE refresh_state ADD COLUMN dropped INTEGER NOT NULL DEFAULT 0;
