-- Migration 11: the last version handed out for each (topic, kind) of
-- models. ResetTopic (a crawl started with --fresh) deletes a topic's
-- models, and PutModel numbered the next one 1 again; a worker that had
-- decoded the old version 1 (modelstore.Load caches by version: a stored
-- version never changes) then served the previous topic file's model to
-- the new crawl. These rows outlive the reset, so PutModel never hands a
-- version number out twice. A trigger keeps them from the models rows.

-- No model writes between the backfill below and the trigger taking over.
LOCK TABLE models IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE IF NOT EXISTS model_versions (
    topic        TEXT    NOT NULL,
    kind         TEXT    NOT NULL,
    last_version INTEGER NOT NULL,
    PRIMARY KEY (topic, kind)
);
INSERT INTO model_versions (topic, kind, last_version)
    SELECT topic, kind, MAX(version) FROM models GROUP BY topic, kind
    ON CONFLICT (topic, kind) DO NOTHING;

CREATE OR REPLACE FUNCTION models_version_seen() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO model_versions (topic, kind, last_version) VALUES (NEW.topic, NEW.kind, NEW.version)
        ON CONFLICT (topic, kind) DO UPDATE SET last_version = GREATEST(model_versions.last_version, EXCLUDED.last_version);
    RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS models_version_seen ON models;
CREATE TRIGGER models_version_seen AFTER INSERT ON models FOR EACH ROW EXECUTE FUNCTION models_version_seen();
