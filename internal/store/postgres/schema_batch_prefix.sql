-- Migration 3: batch-ID prefix ranges (the streaming fetch path's
-- ReleaseBatches and BatchStats select every batch whose ID starts with a
-- prefix). The range prefix <= batch_id < prefix || U+10FFFF selects exactly
-- those IDs in code-point order, i.e. collation "C"; these indexes serve it
-- whatever the database's default collation.
CREATE INDEX IF NOT EXISTS frontier_batch_prefix ON frontier (topic, batch_id COLLATE "C") WHERE batch_id <> '';
CREATE INDEX IF NOT EXISTS pages_batch_prefix ON pages (topic, batch_id COLLATE "C");
