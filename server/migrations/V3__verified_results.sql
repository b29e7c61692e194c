-- Verified results, review and moderation (docs/replay.md).

-- Every accepted result, one row per (player, scoreId): the first receipt stands.
CREATE TABLE results (
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    score_id    TEXT NOT NULL,
    mode        TEXT NOT NULL,
    value       BIGINT NOT NULL,
    -- The prompt identity, e.g. `words:42` or `quotes:austen-pride`.
    prompt      TEXT NOT NULL,
    -- `corpus:seed` for seeded prompts (a seed counts once per player); NULL for passages.
    seed_key    TEXT,
    played_at   BIGINT NOT NULL,
    -- When the server first received it: the board's achievedAt, and what breaks ties.
    received_at BIGINT NOT NULL,
    -- The weekly board it belongs on (the current week when received); NULL: all-time only.
    board_week  BIGINT,
    -- 'public' (on the boards), 'held' (waits for an operator) or 'approved'.
    state       TEXT NOT NULL,
    -- Why it was held: review rule ids, comma-separated; '' when none.
    holds       TEXT NOT NULL,
    -- 1 when a hold is about timing no person produces.
    suspicious  BIGINT NOT NULL,
    -- The replayed stats, as JSON.
    stats       TEXT NOT NULL,
    -- The input log (base64), kept for results that were held, for review.
    input       TEXT,
    PRIMARY KEY (player_id, score_id)
);

CREATE UNIQUE INDEX results_seed_once ON results (player_id, seed_key);
CREATE INDEX results_by_state ON results (state, received_at);
CREATE INDEX results_suspicious ON results (suspicious, received_at);

-- The name's compatibility caseless key: one name per key. Saves from before this
-- migration get theirs the first time a name is checked.
ALTER TABLE players ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX players_by_name_key ON players (name_key);
-- Who set the name: 'player', or 'operator' after a moderation reset.
ALTER TABLE players ADD COLUMN name_set_by TEXT NOT NULL DEFAULT 'player';
-- 1: hidden from the public boards by an operator.
ALTER TABLE players ADD COLUMN hidden BIGINT NOT NULL DEFAULT 0;
