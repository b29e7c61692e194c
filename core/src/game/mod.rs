//! One game, from the prompt to its score: the modes and the word tests' options, the prompts and the corpora they
//! are drawn from, the typing session and its input log, scoring (docs/scoring.md), the
//! figures a finished game shows and the boards it counts on (`board`); then what its
//! log gives afterwards: the 跟打 report of every unit (`report`), the 成绩 line players
//! paste back (`result_line`), and the frames a player plays it back with (`playback`).

pub mod board;
pub mod corpora;
pub mod figures;
pub mod input_log;
pub mod lines;
pub mod mode;
pub mod options;
pub mod playback;
pub mod prompt;
pub mod prompt_id;
pub mod report;
pub mod result_line;
pub(crate) mod rng;
pub mod score;
pub mod texts;
pub mod typing;
