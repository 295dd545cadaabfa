-- Migration 5 (PostgreSQL): claim fences (store.Fence): the newest token of each
-- named run of claims, so a superseded claimer (a streaming slice's attempt
-- that its retry replaced) can no longer claim.
CREATE TABLE IF NOT EXISTS fences (
    topic TEXT   NOT NULL,
    name  TEXT   NOT NULL,
    token BIGINT NOT NULL,
    PRIMARY KEY (topic, name)
);
