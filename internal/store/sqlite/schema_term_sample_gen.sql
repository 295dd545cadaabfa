-- Migration 20 (SQLite): the generation of a topic's term sample
-- (store.GroupResult.TermSampleGen, store.TermTotals.Gen), which
-- ResetTopic bumps: it now zeroes the topic's document count and keeps
-- the row instead of deleting it. A worker keeps a full sample's frozen
-- statistics in memory, known by its document count; a topic reset under
-- the same crawl ID whose new sample filled to that very count looked the
-- same to it, and it went on with the old sample's statistics. Rows of
-- earlier releases read 0: no worker of this release kept anything of
-- them.
ALTER TABLE topic_docs ADD COLUMN gen BIGINT NOT NULL DEFAULT 0;
