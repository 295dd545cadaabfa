-- Migration 9 (SQLite): until when a host is held — it answered 429 or 503, or
-- sent Retry-After (store.Hosts.HoldHost) — so that every worker's claims
-- leave its entries queued meanwhile. The partial index keeps the lookup of
-- the few held hosts from scanning every host ever seen.
ALTER TABLE hosts ADD COLUMN held_until BIGINT NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS hosts_held ON hosts (held_until) WHERE held_until > 0;
