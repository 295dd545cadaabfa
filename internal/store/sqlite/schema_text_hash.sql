-- Migration 17 (SQLite): the near-duplicate signature of a page's plain
-- text (store.Page.TextHash, textsig.Signature), set by its parse write and
-- looked up by DuplicateOf after the final URL and content hashes. Rows of
-- earlier releases read '' (no signature): they are found as duplicates
-- only exactly, as before (a refresh that finds one changed parses it
-- again, with a signature).
ALTER TABLE pages ADD COLUMN text_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX IF NOT EXISTS pages_text_hash ON pages (topic, text_hash);
