-- Migration 19 (SQLite): what a queued entry's priority was demoted by
-- (store.Frontier.DemoteQueued: a gone directory, a dead host), 1 until
-- then. The hub/authority recomputation's Reprioritize wrote absolute
-- priorities from the links' scores, and a raise from a new link did too,
-- which lifted a sunk entry back to where it was before its directory
-- turned out gone; both now multiply what they write by the sink. Entries
-- of earlier releases read 1: a demotion made before the upgrade is
-- forgotten at the next recomputation, as before.
ALTER TABLE frontier ADD COLUMN sink DOUBLE PRECISION NOT NULL DEFAULT 1;
