-- Migration 11 (SQLite): the final URL hashes pages gave up when a refresh
-- replaced them (store.Refreshes.ReplacePage). The index document under such
-- a hash can be left with no page holding it — two pages of one final URL
-- that both move away in one batch each see the other still holding it —
-- and the page rows name only the new final URLs, so FinishRefresh reads
-- these (GivenUpFinals) to check them once the batch is judged. Rows go with
-- their page.
CREATE TABLE IF NOT EXISTS refresh_given_up (
    topic      TEXT NOT NULL,
    url_hash   TEXT NOT NULL,
    final_hash TEXT NOT NULL,
    PRIMARY KEY (topic, url_hash, final_hash),
    FOREIGN KEY (topic, url_hash) REFERENCES pages (topic, url_hash) ON DELETE CASCADE
);
