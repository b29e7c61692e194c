-- 跟打 (docs/genda.md): loaded texts, their boards and the day's race, result codes,
-- and input logs kept for every accepted result (a board entry's log is public:
-- `GET /api/results/{code}/replay`, docs/api.md).

-- Every text a result was accepted on, stored once.
CREATE TABLE texts (
    -- hex SHA-256 of the normalised text (keydo_core::text::hash::TextHash).
    hash        TEXT PRIMARY KEY,
    -- Its first 12 hex digits: the `/t/<short>` link.
    short       TEXT NOT NULL,
    -- The normalised text, within the core's cap (3,000 字 / 6,000 characters).
    body        TEXT NOT NULL,
    -- The mode it is typed in: 'zh' or 'quote'.
    mode        TEXT NOT NULL,
    -- Its length in characters (Unicode scalar values).
    chars       BIGINT NOT NULL,
    -- The save whose result stored it first, and when.
    stored_by   TEXT NOT NULL,
    stored_at   BIGINT NOT NULL
);
CREATE INDEX texts_by_short ON texts (short);

-- The boards beside a mode's: `text:<hash>:best`, `text:<hash>:first` and
-- `daily:<zh|en>:<day>`, one row per (board, player). Best boards keep a strictly
-- higher value, first boards a strictly earlier played_at; a tie keeps the row.
CREATE TABLE board_scores (
    board       TEXT NOT NULL,
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    value       BIGINT NOT NULL,
    score_id    TEXT NOT NULL,
    played_at   BIGINT NOT NULL,
    -- When the server first received the game: what ranks ties.
    achieved_at BIGINT NOT NULL,
    PRIMARY KEY (board, player_id)
);
CREATE INDEX board_scores_rank ON board_scores (board, value DESC, achieved_at, player_id);
CREATE INDEX board_scores_by_player ON board_scores (player_id);

-- The boards a result counts on besides its mode's, comma-separated board ids; with
-- 'mode' when it counts on its mode's boards. NULL for results from before this
-- migration: their mode's boards.
ALTER TABLE results ADD COLUMN boards TEXT;

-- Each accepted result's short code, 6 characters of 23456789ABCDEFGHJKLMNPQRSTUVWXYZ:
-- the 验证 code of its 成绩 line and its `/r/<code>` replay link.
CREATE TABLE result_codes (
    code        TEXT PRIMARY KEY,
    player_id   TEXT NOT NULL,
    score_id    TEXT NOT NULL
);
CREATE UNIQUE INDEX result_codes_by_result ON result_codes (player_id, score_id);
