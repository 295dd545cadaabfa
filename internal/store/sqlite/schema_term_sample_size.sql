-- Migration 21 (SQLite): a topic's term sample keeps its size and never
-- repeats its generation.
--
-- topic_docs.sample is the size fixed for the topic's sample by the write
-- that started it (store.GroupWrite.TermSample, crawl.term_sample; -1 for
-- no bound), which every later write goes by: workers configured with
-- different sizes disagreed on when the sample was full, one freezing
-- its statistics while another counted on. 0 = no size fixed: rows of
-- earlier releases, or created by one, get the size of the next write of
-- this release; ResetTopic sets it back to 0.
--
-- A topic's sample is known by its generation (topic_docs.gen, migration
-- 20), which ResetTopic bumps. A worker of a release before that resets a
-- topic by deleting its topic_docs row, and its next write creates the row
-- again at generation 0: a worker of this release keeping the old sample's
-- statistics (frozen at generation 0, the only one rows of earlier
-- releases have) took a refill of as many documents for the old sample.
-- term_sample_gens keeps, past such a delete, the last generation each
-- topic's row had, and a row created again starts above it, whichever
-- release writes it: the generations of a topic's samples never repeat
-- (as model_versions keeps model numbers from repeating). Triggers keep
-- it, so a release that knows nothing of it is covered too; this release
-- never deletes the row.
ALTER TABLE topic_docs ADD COLUMN sample BIGINT NOT NULL DEFAULT 0;
CREATE TABLE IF NOT EXISTS term_sample_gens (
    topic    TEXT   NOT NULL PRIMARY KEY,
    last_gen BIGINT NOT NULL -- the generation of the topic's last deleted topic_docs row
);
CREATE TRIGGER IF NOT EXISTS topic_docs_gone AFTER DELETE ON topic_docs
BEGIN
    INSERT INTO term_sample_gens (topic, last_gen) VALUES (OLD.topic, OLD.gen)
        ON CONFLICT (topic) DO UPDATE SET last_gen = MAX(last_gen, excluded.last_gen);
END;
-- Only a row actually inserted: an upsert that updates fires no INSERT
-- trigger, so a counting write pays nothing for it.
CREATE TRIGGER IF NOT EXISTS topic_docs_new_gen AFTER INSERT ON topic_docs
WHEN NEW.gen <= (SELECT last_gen FROM term_sample_gens WHERE topic = NEW.topic)
BEGIN
    UPDATE topic_docs SET gen = (SELECT last_gen + 1 FROM term_sample_gens WHERE topic = NEW.topic)
        WHERE topic = NEW.topic;
END;
