-- Save creations remembered under the client's Idempotency-Key, so a resend after a
-- lost answer gets the same save back (docs/api.md, "Idempotency").
-- Neither the key nor the token is stored: the key only as its SHA-256, the token
-- only sealed with a pad derived from the key, which only the client knows.

CREATE TABLE save_creations (
    -- hex SHA-256 of the key (a UUID, lowercase, hyphenated).
    key_sha256     TEXT PRIMARY KEY,
    -- hex SHA-256 of the request body as parsed, so a reused key with another body
    -- is recognised.
    request_sha256 TEXT NOT NULL,
    -- Deferred: a creation claims its key before it writes the save.
    player_id      TEXT NOT NULL REFERENCES players (player_id) DEFERRABLE INITIALLY DEFERRED,
    -- hex of token XOR SHA-256("keydo-idempotency-token" || key), first 16 bytes.
    token_sealed   TEXT NOT NULL,
    created_at     BIGINT NOT NULL
);

-- Pruning takes the oldest records first.
CREATE INDEX save_creations_by_age ON save_creations (created_at, key_sha256);
