//! Per-unit statistics read from input logs (docs/practice.md, "Statistics").
//!
//! A unit is an English letter or a Chinese 字. Each finished game's log is replayed
//! through a fresh [`Session`], so a keystroke lands where the game put it (finished
//! words, the end of a `time` game and deletions behave exactly as when scored), and
//! every character the game placed is judged against the prompt:
//!
//! - English, per letter: the time since the previous logged edit, shared equally by
//!   the characters one edit placed. A wrong letter is a miss for the letter the
//!   prompt expected. Samples under [`MIN_SAMPLE_MS`] (two keys at once) or over
//!   [`MAX_SAMPLE_MS`] (a pause) are dropped.
//! - Chinese, per 字: the time from the first key of its composition to the first key of
//!   the next one, shared equally by the 字 committed together, and the composition's
//!   keys shared the same way. A wrong 字 is a miss for the 字 expected. Start to start
//!   holds for 顶功 input methods such as 键道 too: there the next code's first key
//!   commits the previous word, so that key ends one composition and starts the next at
//!   the same moment, and each 字 is still timed over exactly its own keys.
//!
//! Each unit's times are averaged per game and smoothed across games with an
//! exponential moving average ([`EMA_ALPHA`]). Everything kept is an integer, so the
//! store survives any JSON round trip exactly and rebuilding from the stored logs gives
//! the same store, bit for bit.

use crate::game::input_log::{InputLog, LoggedEdit};
use crate::game::mode::{CHARS_PER_WORD, Language, Mode};
use crate::game::prompt::Prompt;
use crate::game::typing::{CharState, Session};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Faster than this between two keys is two keys pressed together: not a sample.
pub const MIN_SAMPLE_MS: u64 = 40;
/// Slower than this is a pause, not typing: not a sample.
pub const MAX_SAMPLE_MS: u64 = 12_000;
/// The weight of the newest game in a unit's smoothed time. 0.3 follows a real change
/// within three or four games (0.7⁴ ≈ 0.24 of the old value is left) while one odd game
/// moves the value by less than a third.
pub const EMA_ALPHA: f64 = 0.3;
/// English letters unlocked before any game (docs/practice.md, "English lessons").
pub const STARTING_LETTERS: usize = 6;
/// How many games' speeds a unit keeps for its chart.
pub const RECENT_GAMES: usize = 10;

/// The speeds the player aims for; a unit at this speed has confidence 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// English, in words per minute ([`CHARS_PER_WORD`] letters a word).
    pub wpm: u32,
    /// Chinese, in 字 per minute.
    pub zi_per_minute: u32,
}

impl Default for Target {
    /// 35 WPM, and 40 字/分 (a steady beginner's pace with an input method).
    fn default() -> Self {
        Target {
            wpm: 35,
            zi_per_minute: 40,
        }
    }
}

impl Target {
    /// The time one unit of `language` takes at the target speed, in µs.
    pub fn unit_us(self, language: Language) -> f64 {
        match language {
            Language::English => 60e6 / (f64::from(self.wpm.max(1)) * f64::from(CHARS_PER_WORD)),
            Language::Chinese => 60e6 / f64::from(self.zi_per_minute.max(1)),
        }
    }
}

/// What is known about one letter or 字.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitRecord {
    /// The smoothed time to type it, in µs; 0 until a game gave a sample.
    pub smoothed_us: u64,
    /// The speed of the latest game that gave a sample, × 100 (WPM or 字/分).
    pub last_speed: u32,
    /// The best such speed, × 100.
    pub best_speed: u32,
    /// How often another character was typed where it was expected.
    pub misses: u32,
    /// How many timed samples it has.
    pub samples: u32,
    /// The speeds (× 100) of the latest games with a sample, oldest first, at most
    /// [`RECENT_GAMES`].
    pub recent: Vec<u32>,
    /// Chinese: the composition keys its timed samples took, in hundredths of a key.
    pub keys_centi: u64,
}

impl UnitRecord {
    /// Target time / smoothed time: 1 at the target, lower when slower; `None` before
    /// the first sample.
    pub fn confidence(&self, target_us: f64) -> Option<f64> {
        (self.smoothed_us > 0).then(|| target_us / self.smoothed_us as f64)
    }

    /// Chinese: the mean keys its composition took per 字.
    pub fn keys_per_unit(&self) -> Option<f64> {
        (self.samples > 0).then(|| self.keys_centi as f64 / 100.0 / f64::from(self.samples))
    }

    /// Folds one game's measurements in.
    fn add(&mut self, game: &GameUnit, language: Language) {
        self.misses = self.misses.saturating_add(game.misses);
        if game.samples == 0 {
            return;
        }
        self.samples = self.samples.saturating_add(game.samples);
        self.keys_centi = self.keys_centi.saturating_add(game.keys_centi);
        let mean_us = game.total_us as f64 / f64::from(game.samples);
        self.smoothed_us = if self.smoothed_us == 0 {
            mean_us.round() as u64
        } else {
            (EMA_ALPHA * mean_us + (1.0 - EMA_ALPHA) * self.smoothed_us as f64).round() as u64
        }
        .max(1);
        let speed = speed_centi(mean_us, language);
        self.last_speed = speed;
        self.best_speed = self.best_speed.max(speed);
        if self.recent.len() == RECENT_GAMES {
            self.recent.remove(0);
        }
        self.recent.push(speed);
    }
}

/// A time per unit as a speed × 100: WPM for English, 字/分 for Chinese.
fn speed_centi(mean_us: f64, language: Language) -> u32 {
    let units_per_char = match language {
        Language::English => f64::from(CHARS_PER_WORD),
        Language::Chinese => 1.0,
    };
    (6e9 / (mean_us.max(1.0) * units_per_char))
        .round()
        .min(f64::from(u32::MAX)) as u32
}

/// The player's practice store: every letter's and 字's record, and what is unlocked.
/// Kept by the page; `practice::Course::rebuild` recomputes it from the stored games.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitStats {
    /// Per lowercase letter.
    pub english: BTreeMap<char, UnitRecord>,
    /// Per 字.
    pub chinese: BTreeMap<char, UnitRecord>,
    /// How many letters of the course's order are unlocked (docs/practice.md).
    pub letters_unlocked: usize,
    /// How many pools of common 字 are unlocked.
    pub pools_unlocked: usize,
    /// Games folded in.
    pub games: u32,
}

impl Default for UnitStats {
    fn default() -> Self {
        UnitStats {
            english: BTreeMap::new(),
            chinese: BTreeMap::new(),
            letters_unlocked: STARTING_LETTERS,
            pools_unlocked: 1,
            games: 0,
        }
    }
}

impl UnitStats {
    /// Folds one finished game's measurements in. Unlocking is the course's
    /// (`practice::Course::add_game` does both).
    pub(crate) fn record_game(&mut self, mode: Mode, prompt: &Prompt, log: &InputLog) {
        let language = mode.language();
        let records = match language {
            Language::English => &mut self.english,
            Language::Chinese => &mut self.chinese,
        };
        for (unit, game) in measure(mode, prompt, log) {
            records.entry(unit).or_default().add(&game, language);
        }
        self.games = self.games.saturating_add(1);
    }

    /// The confidence of an English letter (`None` before its first sample).
    pub fn letter_confidence(&self, letter: char, target: Target) -> Option<f64> {
        self.english
            .get(&letter)
            .and_then(|r| r.confidence(target.unit_us(Language::English)))
    }

    /// The confidence of a 字 (`None` before its first sample).
    pub fn zi_confidence(&self, zi: char, target: Target) -> Option<f64> {
        self.chinese
            .get(&zi)
            .and_then(|r| r.confidence(target.unit_us(Language::Chinese)))
    }
}

/// One unit's measurements in one game.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct GameUnit {
    total_us: u64,
    samples: u32,
    misses: u32,
    keys_centi: u64,
}

/// Whether `c` is a unit of `language`: a letter (counted in lowercase), or a 汉字.
fn unit_of(c: char, language: Language) -> Option<char> {
    match language {
        Language::English => c.is_ascii_alphabetic().then(|| c.to_ascii_lowercase()),
        Language::Chinese => is_hanzi(c).then_some(c),
    }
}

/// CJK Unified Ideographs and Extension A.
pub(crate) fn is_hanzi(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3400}'..='\u{4DBF}').contains(&c)
}

/// Each character one edit placed: the unit it was expected to be (`None` if the
/// prompt has no unit there) and whether it was right. Judged when placed, since a
/// later deletion must not undo a miss.
type Marks = Vec<Option<(char, bool)>>;

/// Judges the characters `session` placed from `caret` on.
fn judge(session: &Session, caret: usize, language: Language) -> Marks {
    (caret..session.caret())
        .map(|index| {
            let unit = unit_of(session.target()[index], language)?;
            Some((unit, session.char_state(index) == CharState::Correct))
        })
        .collect()
}

/// Records each unit marked: a miss if wrong, else `sample` (µs and hundredths of a
/// key) when there is one.
fn record(marks: &Marks, sample: Option<(u64, u64)>, units: &mut BTreeMap<char, GameUnit>) {
    for (unit, correct) in marks.iter().flatten() {
        let game = units.entry(*unit).or_default();
        if !correct {
            game.misses += 1;
        } else if let Some((us, keys_centi)) = sample {
            game.total_us += us;
            game.samples += 1;
            game.keys_centi += keys_centi;
        }
    }
}

/// A group of 字 committed together, waiting for the next group to start to be timed.
struct Group {
    marks: Marks,
    /// The first key of its (first) composition.
    started_at: u64,
    committed_at: u64,
    keys: u32,
}

/// Replays `log` and measures every unit it typed. A log that cannot be read is used
/// up to its first error (the server refuses such logs; the page never writes one).
fn measure(mode: Mode, prompt: &Prompt, log: &InputLog) -> BTreeMap<char, GameUnit> {
    let mut session = Session::new(mode, prompt);
    let language = mode.language();
    let mut units: BTreeMap<char, GameUnit> = BTreeMap::new();
    // English: the previous edit's time. Chinese: the first key of the group of 字 being
    // typed, and the last group placed, timed once the next group starts.
    let mut previous_at: Option<u64> = None;
    let mut group_start: Option<u64> = None;
    let mut last_group: Option<Group> = None;
    for entry in log.entries() {
        let Ok(entry) = entry else { break };
        if session.is_finished() {
            break;
        }
        let caret = session.caret();
        session.apply_logged(entry.at, entry.edit);
        let placed = session.caret().saturating_sub(caret);
        match language {
            Language::English => {
                if placed > 0 {
                    let share_us = previous_at.map(|p| (entry.at - p) * 1_000 / placed as u64);
                    let sample = share_us.filter(|us| in_sample_range(*us)).map(|us| (us, 0));
                    record(&judge(&session, caret, language), sample, &mut units);
                }
                previous_at = Some(entry.at);
            }
            Language::Chinese => {
                let starts_group = matches!(
                    entry.edit,
                    LoggedEdit::CompositionStart | LoggedEdit::Commit(_)
                );
                if starts_group && group_start.is_none() {
                    group_start = Some(entry.at);
                    if let Some(group) = last_group.take() {
                        time_group(&group, entry.at, &mut units);
                    }
                }
                if placed > 0 {
                    let keys = match entry.edit {
                        LoggedEdit::CompositionEnd { keys, .. } => keys,
                        _ => placed as u32,
                    };
                    last_group = Some(Group {
                        marks: judge(&session, caret, language),
                        started_at: group_start.take().unwrap_or(entry.at),
                        committed_at: entry.at,
                        keys,
                    });
                }
            }
        }
    }
    if let Some(group) = last_group {
        // The last group has no next one: it is timed to its commit.
        time_group(&group, group.committed_at, &mut units);
    }
    units
}

fn in_sample_range(us: u64) -> bool {
    (MIN_SAMPLE_MS * 1_000..=MAX_SAMPLE_MS * 1_000).contains(&us)
}

/// Times a group of 字 whose next group started at `next_start`, sharing the time and
/// the keys equally among the characters it placed.
fn time_group(group: &Group, next_start: u64, units: &mut BTreeMap<char, GameUnit>) {
    let count = group.marks.len() as u64;
    let share_us = next_start.saturating_sub(group.started_at) * 1_000 / count;
    let keys_centi = u64::from(group.keys) * 100 / count;
    let sample = in_sample_range(share_us).then_some((share_us, keys_centi));
    record(&group.marks, sample, units);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::input_log::Recorder;

    /// A log of `edits` at the given ms.
    fn log(edits: &[(u64, LoggedEdit<'_>)]) -> InputLog {
        let mut recorder = Recorder::default();
        for (at, edit) in edits {
            recorder.record(*at, *edit);
        }
        recorder.log()
    }

    /// An English log typing each `(text, at)`; "\u{8}" is Backspace.
    fn typed(keys: &[(&str, u64)]) -> InputLog {
        let edits: Vec<_> = keys
            .iter()
            .map(|(text, at)| match *text {
                "\u{8}" => (*at, LoggedEdit::Backspace),
                text => (*at, LoggedEdit::Commit(text)),
            })
            .collect();
        log(&edits)
    }

    fn prompt(text: &str) -> Prompt {
        Prompt::new(text).unwrap()
    }

    fn add(stats: &mut UnitStats, mode: Mode, text: &str, log: &InputLog) {
        stats.record_game(mode, &prompt(text), log);
    }

    #[test]
    fn english_letters_are_timed_from_the_previous_key() {
        let mut stats = UnitStats::default();
        let game = typed(&[
            ("T", 1_000),     // no previous key: no sample
            ("h", 1_200),     // 200 ms
            ("e", 1_205),     // 5 ms: two keys at once, dropped
            (" ", 1_400),     // not a letter
            ("x", 1_600),     // a miss for `c`
            ("\u{8}", 1_700), // Backspace
            ("c", 1_900),     // 200 ms after the Backspace
            ("a", 14_000),    // 12.1 s: a pause, dropped
            ("t", 14_300),    // 300 ms
        ]);
        add(&mut stats, Mode::Quote, "The cat", &game);
        let t = &stats.english[&'t'];
        assert_eq!((t.samples, t.smoothed_us, t.misses), (1, 300_000, 0));
        // 300 ms a letter is 60 000 / (300 × 5) = 40 WPM.
        assert_eq!(
            (t.last_speed, t.best_speed, t.recent.clone()),
            (4_000, 4_000, vec![4_000])
        );
        assert_eq!(stats.english[&'h'].smoothed_us, 200_000);
        let c = &stats.english[&'c'];
        assert_eq!((c.samples, c.smoothed_us, c.misses), (1, 200_000, 1));
        for dropped in ['e', 'a'] {
            assert_eq!(stats.english[&dropped].samples, 0, "{dropped}");
            assert_eq!(stats.english[&dropped].confidence(1.0), None);
        }
        assert!(!stats.english.contains_key(&'x') && !stats.english.contains_key(&' '));
        // The fixture's dropped gaps straddle the bounds.
        const { assert!(5 < MIN_SAMPLE_MS && 12_100 > MAX_SAMPLE_MS) };
        assert_eq!(stats.games, 1);
    }

    #[test]
    fn text_committed_at_once_shares_its_time() {
        let mut stats = UnitStats::default();
        add(
            &mut stats,
            Mode::Words,
            "ab cd",
            &typed(&[("a", 0), ("b c", 600), ("d", 800)]),
        );
        assert_eq!(stats.english[&'b'].smoothed_us, 200_000);
        assert_eq!(stats.english[&'c'].smoothed_us, 200_000);
        assert_eq!(stats.english[&'d'].smoothed_us, 200_000);
    }

    #[test]
    fn games_are_smoothed_and_confidence_falls_as_time_grows() {
        let mut stats = UnitStats::default();
        let target = Target::default();
        let mut confidences = Vec::new();
        let mut speeds = Vec::new();
        for game in 0..12u64 {
            let gap = 150 + 30 * game;
            add(
                &mut stats,
                Mode::Words,
                "ah",
                &typed(&[("a", 0), ("h", gap)]),
            );
            confidences.push(stats.letter_confidence('h', target).unwrap());
            speeds.push((6e9 / (gap as f64 * 1_000.0 * 5.0)).round() as u32);
        }
        assert!(
            confidences.windows(2).all(|w| w[1] < w[0]),
            "{confidences:?}"
        );
        let h = &stats.english[&'h'];
        // The second game: 0.3 × 180 ms + 0.7 × 150 ms.
        let mut second = UnitStats::default();
        for gap in [150, 180] {
            add(
                &mut second,
                Mode::Words,
                "ah",
                &typed(&[("a", 0), ("h", gap)]),
            );
        }
        assert_eq!(second.english[&'h'].smoothed_us, 159_000);
        assert_eq!(
            second.english[&'h'].smoothed_us,
            (EMA_ALPHA * 180_000.0 + (1.0 - EMA_ALPHA) * 150_000.0).round() as u64
        );
        assert_eq!(h.recent.len(), RECENT_GAMES);
        assert_eq!(h.recent, speeds[12 - RECENT_GAMES..]);
        assert_eq!(h.best_speed, speeds[0]);
        assert_eq!(h.last_speed, speeds[11]);
        assert_eq!(h.samples, 12);
        // At the target time exactly, confidence is 1.
        let at_target = UnitRecord {
            smoothed_us: target.unit_us(Language::English).round() as u64,
            ..UnitRecord::default()
        };
        assert!(
            (at_target
                .confidence(target.unit_us(Language::English))
                .unwrap()
                - 1.0)
                .abs()
                < 1e-6
        );
    }

    /// 键道 and other 顶功 methods: the first key of the next code commits the previous
    /// word, so one composition ends and the next starts at the same moment.
    #[test]
    fn dinggong_compositions_time_each_zi_start_to_start() {
        use LoggedEdit::{CompositionEnd as End, CompositionStart as Start};
        let game = log(&[
            (0, Start),
            (
                900,
                End {
                    text: "我们",
                    keys: 4,
                },
            ),
            (900, Start),
            (
                1_500,
                End {
                    text: "今天",
                    keys: 4,
                },
            ),
            (1_500, Start),
            (
                2_400,
                End {
                    text: "学系",
                    keys: 4,
                },
            ), // 系 is wrong: a miss for 习
            (2_400, Start),
            (
                3_000,
                End {
                    text: "中文",
                    keys: 5,
                },
            ), // the last, committed by a space
        ]);
        let mut stats = UnitStats::default();
        add(&mut stats, Mode::Zh, "我们今天学习中文", &game);
        let expect = |zi: char, us: u64, keys_centi: u64, misses: u32| {
            let record = &stats.chinese[&zi];
            assert_eq!(
                (record.smoothed_us, record.keys_centi, record.misses),
                (us, keys_centi, misses),
                "{zi}"
            );
        };
        expect('我', 450_000, 200, 0);
        expect('们', 450_000, 200, 0);
        expect('今', 300_000, 200, 0);
        expect('天', 300_000, 200, 0);
        expect('学', 450_000, 200, 0);
        expect('中', 300_000, 250, 0);
        expect('文', 300_000, 250, 0);
        let xi = &stats.chinese[&'习'];
        assert_eq!((xi.samples, xi.misses), (0, 1));
        assert!(!stats.chinese.contains_key(&'系'));
        // 450 ms a 字 is 133.33 字/分; 2.5 keys a 字.
        assert_eq!(stats.chinese[&'我'].last_speed, 13_333);
        assert_eq!(stats.chinese[&'中'].keys_per_unit(), Some(2.5));
    }

    #[test]
    fn a_retried_or_corrected_zi_is_timed_from_its_first_try() {
        use LoggedEdit::{Backspace, Commit, CompositionEnd as End, CompositionStart as Start};
        let game = log(&[
            (0, Start),
            (500, End { text: "", keys: 3 }), // cancelled
            (800, Start),
            (
                1_400,
                End {
                    text: "我们",
                    keys: 4,
                },
            ),
            (2_000, Start),
            (
                2_600,
                End {
                    text: "他",
                    keys: 2,
                },
            ), // wrong: 好 expected
            (3_000, Backspace),
            (3_200, Start),
            (
                3_800,
                End {
                    text: "好",
                    keys: 2,
                },
            ),
            (4_100, Commit("。")),
        ]);
        let mut stats = UnitStats::default();
        add(&mut stats, Mode::Zh, "我们好。", &game);
        assert_eq!(stats.chinese[&'我'].smoothed_us, 1_000_000);
        let hao = &stats.chinese[&'好'];
        // One miss, then timed from its second composition to the 。's key.
        assert_eq!((hao.misses, hao.samples, hao.smoothed_us), (1, 1, 900_000));
        assert_eq!(stats.chinese.len(), 3);
    }

    /// Games played through a session the way the page drives it, by a metronome.
    #[test]
    fn simulated_games_give_the_metronome_back() {
        use crate::verify::simulate::{Typist, play_prompt};
        let typist = Typist::metronome(100.0);
        let text = "the quick brown fox";
        let session = play_prompt(Mode::Words, &prompt(text), &typist);
        let mut stats = UnitStats::default();
        stats.record_game(Mode::Words, &prompt(text), &session.input_log());
        for (letter, record) in &stats.english {
            // `t` came only first, with no key before it.
            let expected = if *letter == 't' { 0 } else { 100_000 };
            assert_eq!(record.smoothed_us, expected, "{letter}");
            assert_eq!(record.misses, 0, "{letter}");
        }
        assert_eq!(stats.english.len(), 15);
        // 中文: two 字 a composition, six keys pressed at 100 ms: five updates, then the
        // commit; the next composition starts 100 ms later. So 350 ms a 字 (the last
        // composition, timed to its commit, 300 ms) and 2.5 logged keys a 字.
        let text = "我们今天学习中文";
        let session = play_prompt(Mode::Zh, &prompt(text), &typist);
        stats.record_game(Mode::Zh, &prompt(text), &session.input_log());
        for (zi, record) in &stats.chinese {
            let expected = if "中文".contains(*zi) {
                300_000
            } else {
                350_000
            };
            assert_eq!(record.smoothed_us, expected, "{zi}");
            assert_eq!(record.keys_per_unit(), Some(2.5), "{zi}");
        }
        assert_eq!(stats.chinese.len(), 8);
    }

    #[test]
    fn the_store_survives_json() {
        let mut stats = UnitStats::default();
        add(
            &mut stats,
            Mode::Words,
            "the",
            &typed(&[("t", 0), ("h", 173), ("e", 291)]),
        );
        add(
            &mut stats,
            Mode::Zh,
            "学习",
            &log(&[
                (0, LoggedEdit::CompositionStart),
                (
                    777,
                    LoggedEdit::CompositionEnd {
                        text: "学习",
                        keys: 5,
                    },
                ),
            ]),
        );
        let json = serde_json::to_string(&stats).unwrap();
        assert!(json.contains("\"学\":{"), "{json}");
        assert_eq!(serde_json::from_str::<UnitStats>(&json).unwrap(), stats);
    }
}
