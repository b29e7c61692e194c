-- The profile that follows the player, their devices, profile operations remembered
-- under their Idempotency-Key, and one-time link codes (docs/api.md, "Profile" and
-- "Devices").

-- The profile record beyond the name and version: the settings, and who set each field
-- when (JSON of keydo_core's `Settings` and field → `{at, by}` stamps). '{}' reads as
-- the default settings and no stamps.
ALTER TABLE players ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
ALTER TABLE players ADD COLUMN stamps TEXT NOT NULL DEFAULT '{}';
-- A name an operator set becomes the name field's operator stamp (server-wins).
UPDATE players SET stamps = '{"displayName":{"at":0,"by":"operator"}}'
WHERE name_set_by = 'operator';
ALTER TABLE players DROP COLUMN name_set_by;

-- One row per token. Auth reads only this table: a revoked device's token is refused.
-- (players.token_sha256 stays as the first device's token: SQLite cannot drop a UNIQUE
-- column; nothing reads it any more.)
CREATE TABLE devices (
    device_id    TEXT PRIMARY KEY,
    -- Deferred: linking inserts the device before it may fold another save away.
    player_id    TEXT NOT NULL REFERENCES players (player_id) DEFERRABLE INITIALLY DEFERRED,
    -- hex SHA-256 of the device's bearer token.
    token_sha256 TEXT NOT NULL UNIQUE,
    -- "Chrome on Android": derived from the User-Agent, never the header itself.
    label        TEXT NOT NULL,
    linked_at    BIGINT NOT NULL,
    revoked_at   BIGINT
);
CREATE INDEX devices_by_player ON devices (player_id, linked_at);
-- Every existing save's token becomes its first device, under the player's own id.
INSERT INTO devices (device_id, player_id, token_sha256, label, linked_at)
SELECT player_id, player_id, token_sha256, 'Browser', created_at FROM players;

-- PATCH /api/saves/me answers, per (player, SHA-256 of the Idempotency-Key), kept 24 h.
CREATE TABLE profile_operations (
    player_id      TEXT NOT NULL REFERENCES players (player_id),
    key_sha256     TEXT NOT NULL,
    -- hex SHA-256 of the operation as parsed: the same key with another body is refused.
    request_sha256 TEXT NOT NULL,
    -- The answer (JSON of `ProfileAnswer`), replayed as it was first given.
    answer         TEXT NOT NULL,
    created_at     BIGINT NOT NULL,
    PRIMARY KEY (player_id, key_sha256)
);
CREATE INDEX profile_operations_by_age ON profile_operations (created_at, player_id, key_sha256);

-- One-time codes that let another device join a player. Only the code's SHA-256 is kept.
CREATE TABLE link_codes (
    code_sha256 TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX link_codes_by_player ON link_codes (player_id);
CREATE INDEX link_codes_by_expiry ON link_codes (expires_at, code_sha256);
