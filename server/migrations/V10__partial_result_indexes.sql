-- Results are listed by an operator only while held or when suspicious
-- (docs/replay.md, "The review queue"), a small share of them: index only those rows, so
-- storing a result writes two b-trees fewer (docs/operations.md, "What a submission
-- costs").
DROP INDEX results_by_state;
DROP INDEX results_suspicious;
CREATE INDEX results_held ON results (received_at) WHERE state = 'held';
CREATE INDEX results_suspicious ON results (received_at) WHERE suspicious = 1;
