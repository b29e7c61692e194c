-- A log is spent once (docs/replay.md, "A log is spent once"): the SHA-256 of every
-- accepted result's input log, unique across all saves. Results from before this
-- migration have none (public ones kept no log; held ones keep theirs in
-- `results.input` but are not digested), so their logs are not spent.

CREATE TABLE log_digests (
    -- hex SHA-256 of the input log's bytes: its edits with their times, nothing else.
    log_sha256 TEXT PRIMARY KEY,
    -- The result that spent it. No foreign key: folding a save into another moves its
    -- results but leaves these rows as they were, naming the save that sent the log.
    player_id  TEXT NOT NULL,
    score_id   TEXT NOT NULL,
    spent_at   BIGINT NOT NULL
);
