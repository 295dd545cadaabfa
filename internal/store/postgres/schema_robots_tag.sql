-- Migration 9 (PostgreSQL): the X-Robots-Tag header values of a page's response
-- (store.Page.RobotsTag), which the parse stage reads with the page's robots
-- <meta> tags.
ALTER TABLE pages ADD COLUMN IF NOT EXISTS robots_tag TEXT NOT NULL DEFAULT '';
