-- Players (saves), their all-time bests and their weekly bests.
-- Plain TEXT and BIGINT so the same schema and queries run on SQLite and PostgreSQL.
-- Times are unix milliseconds; ids are lowercase hyphenated UUIDs.

CREATE TABLE players (
    player_id    TEXT PRIMARY KEY,
    -- hex SHA-256 of the bearer token; the token itself is never stored.
    token_sha256 TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    version      BIGINT NOT NULL,
    created_at   BIGINT NOT NULL
);

-- One row per (player, mode): the best game ever.
CREATE TABLE scores (
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    mode        TEXT NOT NULL,
    value       BIGINT NOT NULL,
    score_id    TEXT NOT NULL,
    achieved_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, mode)
);

CREATE INDEX scores_by_rank ON scores (mode, value DESC, achieved_at, player_id);

-- One row per (player, mode, week): the best game of a UTC+8 week.
CREATE TABLE weekly_scores (
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    mode        TEXT NOT NULL,
    week        BIGINT NOT NULL,
    value       BIGINT NOT NULL,
    score_id    TEXT NOT NULL,
    achieved_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, mode, week)
);

CREATE INDEX weekly_scores_by_rank ON weekly_scores (mode, week, value DESC, achieved_at, player_id);
