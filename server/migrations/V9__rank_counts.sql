-- Ranks at a million players (docs/operations.md, "Ranks at a million"): a player's
-- rank is the sum of the counts of the buckets above theirs plus a count inside their
-- own bucket, so a leaderboard read never counts a whole mode.

-- The value a board row had before its last change (NULL: it was inserted, or is older
-- than this migration). The board's upsert returns it, so the counts below follow every
-- change in the same transaction without reading the row first.
ALTER TABLE scores ADD COLUMN previous_value BIGINT;
ALTER TABLE weekly_scores ADD COLUMN previous_value BIGINT;

-- Players per bucket of a board: value / 10 (0.1 WPM or 0.1 字/分 wide), week -1 for
-- the all-time board. Written only by the sweeper, which folds rank_deltas into it.
CREATE TABLE rank_counts (
    mode    TEXT NOT NULL,
    week    BIGINT NOT NULL,
    bucket  BIGINT NOT NULL,
    players BIGINT NOT NULL,
    PRIMARY KEY (mode, week, bucket)
);

-- Changes to those counts, appended in the transaction of every board change (+1 on
-- entering a bucket, -1 on leaving it). Appends never wait for each other, so no
-- counter is a hot row and no lock order can deadlock; a count is rank_counts plus
-- the deltas not folded yet.
CREATE TABLE rank_deltas (
    mode   TEXT NOT NULL,
    week   BIGINT NOT NULL,
    bucket BIGINT NOT NULL,
    delta  BIGINT NOT NULL
);
CREATE INDEX rank_deltas_by_bucket ON rank_deltas (mode, week, bucket);

INSERT INTO rank_counts (mode, week, bucket, players)
    SELECT mode, -1, value / 10, COUNT(*) FROM scores GROUP BY mode, value / 10;
INSERT INTO rank_counts (mode, week, bucket, players)
    SELECT mode, week, value / 10, COUNT(*) FROM weekly_scores GROUP BY mode, week, value / 10;
