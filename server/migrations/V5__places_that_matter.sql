-- Places that matter wait for review, and the review queue stays small (docs/replay.md,
-- "Places that matter" and "The review queue").

-- How long the result's typing took (its stats' durationMs): a save's verified typing
-- is the sum over its results. NULL for results from before this migration; a save's
-- are filled in from their stats the first time it sends a result again.
ALTER TABLE results ADD COLUMN typing_ms BIGINT;

-- results.state may now also be 'displaced': a held result pushed out of its save's
-- pending few by better ones. It still counts for its player, keeps no input log and
-- waits for no one.
