//! Where a finished game counts, and which of a player's games each board keeps
//! (docs/genda.md, "Boards"; docs/sync.md, "Outbox").
//!
//! A built-in test counts on its mode's boards (all time and the week), which keep each
//! player's best; the same test with options other than the default (30 s, 100 words,
//! punctuation, docs/scoring.md "Options") counts on a personal board of those options
//! alone, never a public one. A loaded text counts on two boards of that text: its best and its
//! 首打, which keeps each player's *first* completed attempt whatever its value. The
//! day's race keeps the first attempt of that day. Client and server apply the same
//! [`Ranking`], so the outbox and the server's boards keep the same game whatever order
//! attempts, resends and tabs deliver them in.

use crate::game::options::TestOptions;
use crate::game::prompt_id::PromptId;
use crate::game::texts::Passages;
use crate::text::daily::{race_day, raced_passage};
use crate::text::hash::TextHash;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use uuid::Uuid;

/// Which of a player's games a board keeps. On the wire `best` or `first`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranking {
    /// The highest value; on a tie, the game played first.
    Best,
    /// The game played first, whatever its value: 首打.
    First,
}

/// What a ranking compares of a game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Attempt {
    pub value: i64,
    /// When the game ended, unix ms.
    pub played_at: u64,
    pub score_id: Uuid,
}

impl Ranking {
    /// Whether the board keeps `incoming` over `kept`. A strict total order on distinct
    /// games (the score id breaks the last tie), so the kept game does not depend on
    /// the order games arrive in, and a game never beats itself.
    pub fn prefers(self, incoming: Attempt, kept: Attempt) -> bool {
        // Earlier is better in both: `played_at` (below 2^53, a JavaScript clock) negated.
        let order = |a: Attempt| {
            let earlier = -(a.played_at as i64);
            match self {
                Ranking::Best => (a.value, earlier, Reverse(a.score_id)),
                Ranking::First => (earlier, a.value, Reverse(a.score_id)),
            }
        };
        order(incoming) > order(kept)
    }
}

/// The board of a game, beside its mode and week: which key the outbox keeps it
/// under and which ranking merges it there. Stored with each outbox entry
/// (`{"kind": "textFirst", "text": "<hash>"}`); entries stored before boards existed
/// have none and are on their mode's boards.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(try_from = "WireBoard", into = "WireBoard")]
pub enum Board {
    /// The mode's public boards, all time and the game's week: a built-in test.
    #[default]
    Mode,
    /// The best of a loaded text (同文榜).
    TextBest { text: TextHash },
    /// The first completed attempt at a loaded text (首打).
    TextFirst { text: TextHash },
    /// The first completed attempt at the day's race of the game's language, on the
    /// UTC+8 day `day` (days since 1970-01-01).
    DailyFirst { day: i64 },
    /// The player's own best of the mode's test with `options` (never the default):
    /// no public board ranks it.
    OptionsBest { options: TestOptions },
}

/// The boards a game on `prompt` that ended at `played_at` (unix ms) counts on, the
/// first-only ones first: a loaded text's 首打 and best (never its mode's public
/// boards); a built-in test's mode boards, and before them the day's race when its
/// passage is the one raced that day in its language; a word test with options its
/// options' personal board alone. `passages` is the corpus a
/// passage prompt names (the page loads each corpus on its own; none is needed for
/// other prompts). Client and server call it alike, so the outbox keeps a game under
/// the boards the server ranks it on.
pub fn boards_of(prompt: &PromptId, played_at: u64, passages: Option<&Passages>) -> Vec<Board> {
    match prompt {
        PromptId::Text { text } => vec![
            Board::TextFirst { text: text.hash() },
            Board::TextBest { text: text.hash() },
        ],
        PromptId::Passage { passage, .. } => {
            // Exact: clocks read below 2^53 ms.
            let day = race_day(played_at as i64);
            match passages {
                Some(passages) if raced_passage(passages, day).id == *passage => {
                    vec![Board::DailyFirst { day }, Board::Mode]
                }
                _ => vec![Board::Mode],
            }
        }
        PromptId::Seeded { options, .. } if options.is_default() => vec![Board::Mode],
        PromptId::Seeded { options, .. } => vec![Board::OptionsBest { options: *options }],
    }
}

impl Board {
    pub fn ranking(self) -> Ranking {
        match self {
            Board::Mode | Board::TextBest { .. } | Board::OptionsBest { .. } => Ranking::Best,
            Board::TextFirst { .. } | Board::DailyFirst { .. } => Ranking::First,
        }
    }
}

/// A board as JSON: its `kind` and the one field that kind carries, read as a flat
/// object. The same JSON serde writes for an enum tagged `kind`, but serde reads such
/// an enum by buffering the whole object first, code several times this size in the
/// page's first download (docs/performance.md, "What loads first").
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WireBoard {
    kind: BoardKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    text: Option<TextHash>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    day: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    options: Option<TestOptions>,
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum BoardKind {
    Mode,
    TextBest,
    TextFirst,
    DailyFirst,
    OptionsBest,
}

impl From<Board> for WireBoard {
    fn from(board: Board) -> WireBoard {
        let wire = |kind| WireBoard {
            kind,
            text: None,
            day: None,
            options: None,
        };
        match board {
            Board::Mode => wire(BoardKind::Mode),
            Board::TextBest { text } => WireBoard {
                text: Some(text),
                ..wire(BoardKind::TextBest)
            },
            Board::TextFirst { text } => WireBoard {
                text: Some(text),
                ..wire(BoardKind::TextFirst)
            },
            Board::DailyFirst { day } => WireBoard {
                day: Some(day),
                ..wire(BoardKind::DailyFirst)
            },
            Board::OptionsBest { options } => WireBoard {
                options: Some(options),
                ..wire(BoardKind::OptionsBest)
            },
        }
    }
}

impl TryFrom<WireBoard> for Board {
    type Error = &'static str;

    fn try_from(wire: WireBoard) -> Result<Board, Self::Error> {
        match (wire.kind, wire.text, wire.day, wire.options) {
            (BoardKind::Mode, None, None, None) => Ok(Board::Mode),
            (BoardKind::TextBest, Some(text), None, None) => Ok(Board::TextBest { text }),
            (BoardKind::TextFirst, Some(text), None, None) => Ok(Board::TextFirst { text }),
            (BoardKind::DailyFirst, None, Some(day), None) => Ok(Board::DailyFirst { day }),
            (BoardKind::OptionsBest, None, None, Some(options)) => {
                Ok(Board::OptionsBest { options })
            }
            _ => Err("a board carries exactly the one field its kind names"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::corpora::Corpora;
    use crate::game::mode::{Language, Mode};
    use crate::game::prompt_id::Corpus;
    use crate::text::daily::daily_passage;
    use proptest::prelude::*;

    fn attempt(value: i64, played_at: u64, id: u128) -> Attempt {
        Attempt {
            value,
            played_at,
            score_id: Uuid::from_u128(id),
        }
    }

    #[test]
    fn best_keeps_the_higher_value_and_first_the_earlier_game() {
        let early_slow = attempt(3_000, 1_000, 1);
        let late_fast = attempt(9_000, 2_000, 2);
        assert!(Ranking::Best.prefers(late_fast, early_slow));
        assert!(!Ranking::Best.prefers(early_slow, late_fast));
        assert!(Ranking::First.prefers(early_slow, late_fast));
        assert!(!Ranking::First.prefers(late_fast, early_slow));
        // Ties: the earlier game keeps a best; the higher value a first.
        let early_fast = attempt(9_000, 1_000, 3);
        assert!(Ranking::Best.prefers(early_fast, late_fast));
        assert!(Ranking::First.prefers(early_fast, early_slow));
    }

    #[test]
    fn a_game_never_beats_itself_and_the_score_id_breaks_full_ties() {
        let a = attempt(5_000, 1_000, 1);
        let b = attempt(5_000, 1_000, 2);
        for ranking in [Ranking::Best, Ranking::First] {
            assert!(!ranking.prefers(a, a));
            assert_ne!(ranking.prefers(a, b), ranking.prefers(b, a));
        }
    }

    #[test]
    fn boards_serialise_with_their_kind_and_default_to_the_mode() {
        let text = TextHash::of("学而时习之");
        let json = serde_json::to_value(Board::TextFirst { text }).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"kind": "textFirst", "text": text.to_string()})
        );
        assert_eq!(
            serde_json::from_value::<Board>(
                serde_json::json!({"kind": "dailyFirst", "day": 20_000})
            )
            .unwrap(),
            Board::DailyFirst { day: 20_000 }
        );
        assert_eq!(Board::default(), Board::Mode);
        // Every kind as it has always been stored, read back as written.
        let options = TestOptions {
            length: Some(30),
            punctuation: true,
            numbers: false,
        };
        for (board, json) in [
            (Board::Mode, serde_json::json!({"kind": "mode"})),
            (
                Board::TextBest { text },
                serde_json::json!({"kind": "textBest", "text": text.to_string()}),
            ),
            (
                Board::OptionsBest { options },
                serde_json::json!({"kind": "optionsBest", "options": {"length": 30, "punctuation": true}}),
            ),
        ] {
            assert_eq!(serde_json::to_value(board).unwrap(), json);
            assert_eq!(serde_json::from_value::<Board>(json).unwrap(), board);
        }
        // A kind without its field, with another kind's, or unknown, is refused.
        for json in [
            serde_json::json!({"kind": "textBest"}),
            serde_json::json!({"kind": "dailyFirst", "day": 1, "text": text.to_string()}),
            serde_json::json!({"kind": "mode", "day": 1}),
            serde_json::json!({"kind": "weekly"}),
            serde_json::json!({"text": text.to_string()}),
        ] {
            assert!(
                serde_json::from_value::<Board>(json.clone()).is_err(),
                "{json}"
            );
        }
        assert_eq!(Board::TextBest { text }.ranking(), Ranking::Best);
        assert_eq!(Board::DailyFirst { day: 1 }.ranking(), Ranking::First);
    }

    /// Unix ms of noon UTC+8 on race day `day`.
    fn noon_of(day: i64) -> u64 {
        (day * 86_400_000 - 8 * 3_600_000 + 12 * 3_600_000) as u64
    }

    /// The boards as the server finds them: the corpus the prompt names.
    fn boards(prompt: &PromptId, played_at: u64) -> Vec<Board> {
        let corpora = Corpora::shipped();
        boards_of(prompt, played_at, corpora.passages(prompt.corpus()))
    }

    #[test]
    fn a_loaded_text_counts_on_its_first_and_best_boards_only() {
        let text = crate::text::LoadedText::new("学而时习之，不亦说乎？").unwrap();
        let hash = text.hash();
        let prompt = PromptId::Text { text };
        assert_eq!(
            boards(&prompt, noon_of(20_000)),
            [
                Board::TextFirst { text: hash },
                Board::TextBest { text: hash }
            ]
        );
    }

    #[test]
    fn the_days_passage_counts_on_the_days_board_on_that_day_only() {
        let corpora = Corpora::shipped();
        for (corpus, language) in [
            (Corpus::Zh, Language::Chinese),
            (Corpus::Quotes, Language::English),
        ] {
            let day = 20_424;
            let passage = daily_passage(corpora, day, language).id.clone();
            let prompt = PromptId::Passage { corpus, passage };
            assert_eq!(
                boards(&prompt, noon_of(day)),
                [Board::DailyFirst { day }, Board::Mode]
            );
            // The day's first and last millisecond, UTC+8.
            let midnight = noon_of(day) - 12 * 3_600_000;
            assert_eq!(
                boards(&prompt, midnight),
                [Board::DailyFirst { day }, Board::Mode]
            );
            assert!(
                !boards(&prompt, midnight - 1).contains(&Board::DailyFirst { day }),
                "23:59:59.999 the day before"
            );
            // The next day raced another passage (no passage two days running).
            assert_eq!(boards(&prompt, noon_of(day + 1)), [Board::Mode]);
            // Without its corpus (not loaded) a passage counts on its mode only.
            assert_eq!(boards_of(&prompt, noon_of(day), None), [Board::Mode]);
        }
    }

    #[test]
    fn other_built_in_games_count_on_their_mode_only() {
        let corpora = Corpora::shipped();
        let day = 20_424;
        let seeded = PromptId::Seeded {
            corpus: Corpus::Words,
            seed: crate::Seed::new(42).unwrap(),
            options: TestOptions::default(),
        };
        assert_eq!(boards(&seeded, noon_of(day)), [Board::Mode]);
        let raced = daily_passage(corpora, day, Language::Chinese).id.clone();
        let other = corpora
            .zh
            .passages()
            .iter()
            .find(|passage| passage.id != raced)
            .unwrap()
            .id
            .clone();
        let prompt = PromptId::Passage {
            corpus: Corpus::Zh,
            passage: other,
        };
        assert_eq!(boards(&prompt, noon_of(day)), [Board::Mode]);
    }

    /// Any options a word mode offers, the default among them.
    fn offered_options(mode: Mode) -> impl Strategy<Value = TestOptions> {
        (
            proptest::sample::select(TestOptions::lengths(mode).to_vec()),
            any::<bool>(),
            any::<bool>(),
        )
            .prop_map(move |(length, punctuation, numbers)| {
                TestOptions {
                    punctuation,
                    numbers,
                    ..TestOptions::default()
                }
                .with_length(mode, length)
            })
    }

    fn word_test(mode: Mode) -> impl Strategy<Value = (Mode, TestOptions, TestOptions, u64)> {
        (
            Just(mode),
            offered_options(mode),
            offered_options(mode),
            0..=crate::Seed::MAX,
        )
    }

    proptest! {
        /// Options' bests never mix: two games of a word mode share a board (and an
        /// outbox key) exactly when they were played with the same options, and only
        /// the default test reaches the mode's public boards.
        #[test]
        fn options_bests_never_mix(
            (mode, a, b, seed) in prop_oneof![word_test(Mode::Time), word_test(Mode::Words)]
        ) {
            let prompt = |options: TestOptions| {
                PromptId::for_game(mode, crate::Seed::new(seed).unwrap(), None).with_options(options)
            };
            let (boards_a, boards_b) = (boards(&prompt(a), noon_of(20_424)), boards(&prompt(b), noon_of(20_424)));
            prop_assert_eq!(boards_a.len(), 1);
            prop_assert_eq!(boards_a == boards_b, a == b);
            prop_assert_eq!(boards_a == [Board::Mode], a.is_default());
            let key = |board: Board| {
                crate::sync::outbox::OutboxKey { profile_id: Uuid::nil(), mode, board, week: None }.to_string()
            };
            prop_assert_eq!(key(boards_a[0]) == key(boards_b[0]), a == b);
            prop_assert_eq!(boards_a[0].ranking(), Ranking::Best);
            // The prompt the server rebuilds is the one the options name.
            let corpora = Corpora::shipped();
            let built = corpora.prompt(mode, &prompt(a)).unwrap();
            prop_assert_eq!(built.as_str().split(' ').count(), a.word_count(mode).get());
        }

        /// Whatever order a board's games arrive in, it keeps the same one: the best
        /// (or first) by value, time and id.
        #[test]
        fn the_kept_game_does_not_depend_on_arrival_order(
            games in proptest::collection::vec((0i64..5, 0u64..5, 0u128..4), 1..12)
                .prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
        ) {
            let (games, shuffled) = games;
            for ranking in [Ranking::Best, Ranking::First] {
                let keep = |games: &[(i64, u64, u128)]| {
                    games.iter().map(|&(v, t, id)| attempt(v, t, id)).fold(None, |kept: Option<Attempt>, incoming| {
                        match kept {
                            Some(kept) if !ranking.prefers(incoming, kept) => Some(kept),
                            _ => Some(incoming),
                        }
                    })
                };
                prop_assert_eq!(keep(&games), keep(&shuffled));
            }
        }
    }
}
