-- Migration 10 (SQLite): the X-Robots-Tag header values of a page's response
-- (store.Page.RobotsTag), which the parse stage reads with the page's robots
-- <meta> tags.
ALTER TABLE pages ADD COLUMN robots_tag TEXT NOT NULL DEFAULT '';
