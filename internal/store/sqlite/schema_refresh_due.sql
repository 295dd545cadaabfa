-- Migration 16 (SQLite): every page carries its revisit row's next_at
-- (refresh_state.next_at; NULL while it has no row), so a refresh claim
-- walks the due pages in claim order through an index and stops after a
-- batch, where it read and sorted every refreshable page of the topic at
-- every claim (about 0.2 s at 200,000 pages; a whole refresh of a large
-- topic was O(pages²/batch)). Triggers keep the copy from the rows,
-- whichever statement writes them; the claim's other inputs (decision,
-- fetch time, relevance, hub) are the page's own columns, which the
-- indexes follow. The groups and why they are split:
-- sqlshared.RefreshChoiceQuery.
ALTER TABLE pages ADD COLUMN refresh_next_at BIGINT; -- refresh_state.next_at; NULL: no row
UPDATE pages SET refresh_next_at = r.next_at
    FROM refresh_state r WHERE r.topic = pages.topic AND r.url_hash = pages.url_hash;
CREATE TRIGGER IF NOT EXISTS refresh_state_due_insert AFTER INSERT ON refresh_state
BEGIN
    UPDATE pages SET refresh_next_at = NEW.next_at WHERE topic = NEW.topic AND url_hash = NEW.url_hash;
END;
CREATE TRIGGER IF NOT EXISTS refresh_state_due_update AFTER UPDATE OF next_at ON refresh_state
    WHEN OLD.next_at <> NEW.next_at
BEGIN
    UPDATE pages SET refresh_next_at = NEW.next_at WHERE topic = NEW.topic AND url_hash = NEW.url_hash;
END;
CREATE TRIGGER IF NOT EXISTS refresh_state_due_delete AFTER DELETE ON refresh_state
BEGIN
    UPDATE pages SET refresh_next_at = NULL WHERE topic = OLD.topic AND url_hash = OLD.url_hash;
END;
-- Revisited pages a claim may take, in claim order (gone ones, -1, left out).
CREATE INDEX IF NOT EXISTS pages_refresh_revisited ON pages (topic, refresh_next_at, (relevance + hub) DESC, url_hash)
    WHERE refresh_next_at >= 0 AND decision IN ('accepted', '', 'rejected', 'tunnel', 'error');
-- Accepted pages never revisited, in claim order (due a fixed delay after their fetch).
CREATE INDEX IF NOT EXISTS pages_refresh_fresh ON pages (topic, fetched_at, (relevance + hub) DESC, url_hash)
    WHERE refresh_next_at IS NULL AND decision = 'accepted';
-- Hubs never revisited, by hub score (the claim's MinHub bounds them).
CREATE INDEX IF NOT EXISTS pages_refresh_hubs ON pages (topic, hub)
    WHERE refresh_next_at IS NULL AND decision IN ('rejected', 'tunnel');
