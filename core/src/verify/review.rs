//! Which verified results wait for an operator before they reach the public boards:
//! the very fast, and those whose timing no person produces (docs/replay.md).
//!
//! A held result is accepted and counts for its player; only its place on the public
//! boards waits for approval. Every rule holds a result *at* its threshold, not only
//! beyond it, so no script can sit exactly on one. The rules (each a [`Hold`]):
//! - [`Hold::Speed`]: the value is at or above the mode's review threshold (by default
//!   200 WPM in the English modes and 200 字/分 in `zh`, near the top of human records).
//! - [`Hold::Burst`]: some [`WINDOW`] consecutive intervals between keys add up to at
//!   most [`WINDOW`] × [`BURST_FLOOR_MS`]: 21 keys within 600 ms is ~400 WPM sustained
//!   over four words, beyond anyone's bursts. Text committed at once counts as that many
//!   keys at one instant, so a pasted or scripted chunk trips this rule.
//! - [`Hold::Regular`]: people's intervals vary. Over windows of [`WINDOW`] intervals
//!   between keys (non-overlapping, at least [`MIN_WINDOWS`]), a median coefficient of
//!   variation (standard deviation / mean) of at most [`REGULAR_MAX_CV`] is a
//!   metronome: typists measure 0.3 and more, a script with a fixed delay about 0. The
//!   same is judged between *commits* (a word or a phrase committed at once is one
//!   event), over windows of [`COMMIT_WINDOW`] intervals (at least
//!   [`COMMIT_MIN_WINDOWS`]): the intervals themselves, and the intervals per committed
//!   character (a script that waits in proportion to what it commits). A commit may
//!   sum several keys, which evens its interval out, so this bound is
//!   [`COMMIT_REGULAR_MAX_CV`]; for the same reason a game with IME compositions (whose
//!   commits are not single keys) is judged by its commits alone, and a game whose
//!   every commit is one key by its keys alone.
//! - [`Hold::ImeSpeed`]: inside IME compositions, at least [`IME_MAX_KEYS_PER_SECOND`]
//!   keys per second (over at least [`IME_MIN_KEYS`] keys), or at least
//!   [`IME_MAX_CHARS_PER_SECOND`] 字 per second (over at least [`IME_MIN_CHARS`] 字).
//! - [`Hold::ImeKeys`]: a composition commits more than [`IME_MAX_CHARS_PER_KEY`] 字 per
//!   key it claims, or all compositions together (at least [`IME_MIN_CHARS`] 字) claim
//!   fewer keys than they commit 字.
//!
//! [`review`] judges the game alone; the server adds [`Hold::TopPlace`], [`Hold::Leap`]
//! and [`Hold::LittleTyping`] for where the result would land (docs/replay.md, "Places
//! that matter").

use crate::game::mode::Mode;
use crate::verify::replay::{Commit, Timing};
use std::fmt;
use std::str::FromStr;

/// Intervals per window of the rhythm rules.
pub const WINDOW: usize = 20;
/// The shortest mean interval between keys a person keeps up over a window.
pub const BURST_FLOOR_MS: u64 = 30;
/// Below this median coefficient of variation, a rhythm is a machine's.
pub const REGULAR_MAX_CV: f64 = 0.15;
/// The fewest windows the rhythm rule judges.
pub const MIN_WINDOWS: usize = 3;
/// The fastest a person presses keys inside IME compositions, sustained.
pub const IME_MAX_KEYS_PER_SECOND: u64 = 25;
/// The fewest composition keys the IME rule judges.
pub const IME_MIN_KEYS: u64 = 40;
/// The fastest a person commits 字 inside IME compositions, sustained: 900 字/分 of
/// composing time, half again the hard limit on a whole game (600 字/分).
pub const IME_MAX_CHARS_PER_SECOND: u64 = 15;
/// The fewest 字 committed by compositions the IME rules judge as a whole.
pub const IME_MIN_CHARS: u64 = 20;
/// The most 字 one composition commits per key: shape codes type any 词 of four or more
/// 字 in four keys (五笔, 键道), and the longest common ones have eight
/// (全国人民代表大会). Every other input method presses at least one key per 字.
pub const IME_MAX_CHARS_PER_KEY: u32 = 2;
/// Intervals per window of the rhythm rule between commits.
pub const COMMIT_WINDOW: usize = 10;
/// The fewest windows the rhythm rule between commits judges: a `zh` passage of 40 字
/// typed a 词 at a time is about 20 commits.
pub const COMMIT_MIN_WINDOWS: usize = 2;
/// At or below this median coefficient of variation, commits come from a machine.
pub const COMMIT_REGULAR_MAX_CV: f64 = 0.05;

/// Why a result waits for review. The ids are stable: they are stored and listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hold {
    Speed,
    Burst,
    Regular,
    ImeSpeed,
    ImeKeys,
    /// Set by the server, not by [`review`]: it would enter a board's top places.
    TopPlace,
    /// Set by the server: it beats the player's public best by the leap margin.
    Leap,
    /// Set by the server: its save has too little verified typing behind it.
    LittleTyping,
}

impl Hold {
    pub const ALL: [Hold; 8] = [
        Hold::Speed,
        Hold::Burst,
        Hold::Regular,
        Hold::ImeSpeed,
        Hold::ImeKeys,
        Hold::TopPlace,
        Hold::Leap,
        Hold::LittleTyping,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Hold::Speed => "speed",
            Hold::Burst => "burst",
            Hold::Regular => "regular",
            Hold::ImeSpeed => "ime-speed",
            Hold::ImeKeys => "ime-keys",
            Hold::TopPlace => "top-place",
            Hold::Leap => "leap",
            Hold::LittleTyping => "little-typing",
        }
    }

    /// Whether the hold is about timing no person produces (a suspicious result), not
    /// merely an exceptional speed or a place that matters (docs/replay.md).
    pub fn is_suspicious(self) -> bool {
        !matches!(
            self,
            Hold::Speed | Hold::TopPlace | Hold::Leap | Hold::LittleTyping
        )
    }

    pub fn parse(id: &str) -> Option<Hold> {
        Hold::ALL.into_iter().find(|hold| hold.id() == id)
    }
}

impl fmt::Display for Hold {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// The review threshold of each mode, as a value (speed × 100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds([i64; 4]);

impl Default for Thresholds {
    /// 200 WPM and 200 字/分.
    fn default() -> Self {
        Thresholds([20_000; 4])
    }
}

impl Thresholds {
    /// The value from which on a result of `mode` is held.
    pub fn value(&self, mode: Mode) -> i64 {
        self.0[Self::index(mode)]
    }

    /// Holds `mode` from `speed` (WPM or 字/分) on.
    pub fn set(&mut self, mode: Mode, speed: u32) {
        self.0[Self::index(mode)] = i64::from(speed) * 100;
    }

    fn index(mode: Mode) -> usize {
        Mode::ALL
            .iter()
            .position(|m| *m == mode)
            .expect("every mode is in Mode::ALL")
    }
}

impl FromStr for Thresholds {
    type Err = String;

    /// `time=200,words=220,zh=250`: the modes named change, the others keep the default.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut thresholds = Thresholds::default();
        for part in text
            .split(',')
            .map(str::trim)
            .filter(|part| !part.is_empty())
        {
            let (mode, speed) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not <mode>=<speed>"))?;
            let mode: Mode = mode
                .trim()
                .parse()
                .map_err(|_| format!("{mode:?} is not a mode (time, words, quote, zh)"))?;
            let speed = speed
                .trim()
                .parse()
                .map_err(|_| format!("{speed:?} is not a whole speed"))?;
            thresholds.set(mode, speed);
        }
        Ok(thresholds)
    }
}

/// Every reason to hold a result of `mode` worth `value` played with `timing`, in
/// [`Hold::ALL`] order; empty when it goes straight to the boards.
pub fn review(mode: Mode, value: i64, timing: &Timing, thresholds: &Thresholds) -> Vec<Hold> {
    let key_intervals: Vec<u64> = timing.key_times.windows(2).map(|w| w[1] - w[0]).collect();
    let rules = [
        (Hold::Speed, value >= thresholds.value(mode)),
        (Hold::Burst, has_burst(&key_intervals)),
        (Hold::Regular, is_regular(&key_intervals, &timing.commits)),
        (Hold::ImeSpeed, ime_too_fast(timing)),
        (Hold::ImeKeys, ime_keys_missing(&timing.commits)),
    ];
    rules
        .into_iter()
        .filter_map(|(hold, broken)| broken.then_some(hold))
        .collect()
}

fn has_burst(key_intervals: &[u64]) -> bool {
    let floor = WINDOW as u64 * BURST_FLOOR_MS;
    key_intervals
        .windows(WINDOW)
        .any(|window| window.iter().sum::<u64>() <= floor)
}

fn is_regular(key_intervals: &[u64], commits: &[Commit]) -> bool {
    // A composition's commit stands for several keys, whose sum evens its interval
    // out: a game with compositions is judged by its commits alone.
    let keys_are_keys = commits
        .iter()
        .all(|commit| commit.composition_keys.is_none());
    if keys_are_keys && median_variation(key_intervals, WINDOW, MIN_WINDOWS) <= REGULAR_MAX_CV {
        return true;
    }
    // Commits of one key each are the keys, already judged at the keys' tighter bound.
    if keys_are_keys && commits.iter().all(|commit| commit.chars == 1) {
        return false;
    }
    let between: Vec<u64> = commits.windows(2).map(|w| w[1].at - w[0].at).collect();
    // Per character in µs: precise enough for a coefficient of variation.
    let per_char: Vec<u64> = commits
        .windows(2)
        .map(|w| (w[1].at - w[0].at) * 1_000 / u64::from(w[1].chars))
        .collect();
    [between, per_char].iter().any(|series| {
        median_variation(series, COMMIT_WINDOW, COMMIT_MIN_WINDOWS) <= COMMIT_REGULAR_MAX_CV
    })
}

/// The median coefficient of variation over non-overlapping windows of `window` values
/// of `series`; infinite (no metronome) with fewer than `min_windows` windows.
fn median_variation(series: &[u64], window: usize, min_windows: usize) -> f64 {
    let mut cvs: Vec<f64> = series
        .chunks_exact(window)
        .map(coefficient_of_variation)
        .collect();
    if cvs.len() < min_windows {
        return f64::INFINITY;
    }
    cvs.sort_by(f64::total_cmp);
    cvs[cvs.len() / 2]
}

/// Standard deviation / mean; a window of nothing but zeros counts as irregular (it is
/// a burst, judged by its own rule).
fn coefficient_of_variation(window: &[u64]) -> f64 {
    let n = window.len() as f64;
    let mean = window.iter().sum::<u64>() as f64 / n;
    if mean == 0.0 {
        return f64::INFINITY;
    }
    let variance = window
        .iter()
        .map(|&x| (x as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    variance.sqrt() / mean
}

/// 字 committed by compositions.
fn composition_chars(commits: &[Commit]) -> u64 {
    commits
        .iter()
        .filter(|commit| commit.composition_keys.is_some())
        .map(|commit| u64::from(commit.chars))
        .sum()
}

fn ime_too_fast(timing: &Timing) -> bool {
    let chars = composition_chars(&timing.commits);
    (timing.composition_keys >= IME_MIN_KEYS
        && timing.composition_keys * 1_000 >= IME_MAX_KEYS_PER_SECOND * timing.composition_ms)
        || (chars >= IME_MIN_CHARS
            && chars * 1_000 >= IME_MAX_CHARS_PER_SECOND * timing.composition_ms)
}

fn ime_keys_missing(commits: &[Commit]) -> bool {
    let too_many_per_key = commits.iter().any(|commit| {
        commit.composition_keys.is_some_and(|keys| {
            u64::from(commit.chars) > u64::from(keys) * u64::from(IME_MAX_CHARS_PER_KEY)
        })
    });
    let chars = composition_chars(commits);
    let keys: u64 = commits
        .iter()
        .filter_map(|commit| commit.composition_keys)
        .map(u64::from)
        .sum();
    too_many_per_key || (chars >= IME_MIN_CHARS && keys < chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timing(intervals: impl IntoIterator<Item = u64>) -> Timing {
        let mut at = 0;
        let mut key_times = vec![0];
        for interval in intervals {
            at += interval;
            key_times.push(at);
        }
        Timing {
            key_times,
            ..Timing::default()
        }
    }

    /// A person's rhythm: intervals around 100 ms, swinging between 40 and 220.
    fn human(n: usize) -> Vec<u64> {
        let pattern = [95, 140, 60, 220, 80, 110, 45, 170, 100, 70];
        pattern.iter().copied().cycle().take(n).collect()
    }

    #[test]
    fn a_person_at_a_normal_speed_goes_straight_to_the_boards() {
        let thresholds = Thresholds::default();
        assert_eq!(
            review(Mode::Time, 12_000, &timing(human(600)), &thresholds),
            []
        );
        // Just under the threshold.
        assert_eq!(
            review(Mode::Zh, 19_999, &timing(human(100)), &thresholds),
            []
        );
    }

    #[test]
    fn at_the_threshold_waits() {
        let thresholds: Thresholds = "words=250".parse().unwrap();
        assert_eq!(
            review(Mode::Time, 20_000, &timing(human(600)), &thresholds),
            [Hold::Speed]
        );
        assert_eq!(
            review(Mode::Words, 24_999, &timing(human(600)), &thresholds),
            []
        );
        assert_eq!(
            review(Mode::Words, 25_000, &timing(human(600)), &thresholds),
            [Hold::Speed]
        );
    }

    #[test]
    fn a_metronome_is_held_however_slow() {
        let steady = timing(std::iter::repeat_n(150, 200));
        assert_eq!(
            review(Mode::Quote, 8_000, &steady, &Thresholds::default()),
            [Hold::Regular]
        );
        // ±13 % of jitter is still a machine's; a person's swing is not.
        let jittered = timing((0..200).map(|i| [130, 150, 170][i % 3]));
        assert_eq!(
            review(Mode::Quote, 8_000, &jittered, &Thresholds::default()),
            [Hold::Regular]
        );
        // Too few windows to judge.
        let short = timing(std::iter::repeat_n(150, WINDOW * MIN_WINDOWS - 1));
        assert_eq!(
            review(Mode::Quote, 8_000, &short, &Thresholds::default()),
            []
        );
    }

    #[test]
    fn twenty_one_keys_within_600_ms_is_a_burst() {
        let mut intervals = human(100);
        intervals.splice(40..40 + WINDOW, std::iter::repeat_n(30, WINDOW));
        assert_eq!(
            review(
                Mode::Words,
                9_000,
                &timing(intervals.clone()),
                &Thresholds::default()
            ),
            [Hold::Burst]
        );
        intervals[45] = 31; // that window now sums to 601 ms
        assert_eq!(
            review(
                Mode::Words,
                9_000,
                &timing(intervals),
                &Thresholds::default()
            ),
            []
        );
        // Text committed at once: 30 keys at one instant.
        let pasted = timing(human(50).into_iter().chain(std::iter::repeat_n(0, 30)));
        assert_eq!(
            review(Mode::Words, 9_000, &pasted, &Thresholds::default()),
            [Hold::Burst]
        );
    }

    #[test]
    fn ime_keys_faster_than_hands() {
        let mut fast = timing(human(30));
        fast.composition_keys = 100;
        fast.composition_ms = 4_000; // 25 keys/s
        assert_eq!(
            review(Mode::Zh, 9_000, &fast, &Thresholds::default()),
            [Hold::ImeSpeed]
        );
        fast.composition_ms = 4_001;
        assert_eq!(review(Mode::Zh, 9_000, &fast, &Thresholds::default()), []);
        fast.composition_keys = IME_MIN_KEYS - 1;
        fast.composition_ms = 1;
        assert_eq!(review(Mode::Zh, 9_000, &fast, &Thresholds::default()), []);
    }

    /// Compositions of `chars` 字 each after `keys` keys, one every `every_ms`, each
    /// lasting `lasting_ms`.
    fn composed(n: usize, chars: u32, keys: u32, every_ms: u64, lasting_ms: u64) -> Timing {
        let commits: Vec<Commit> = (0..n as u64)
            .map(|i| Commit {
                at: i * every_ms + [0, 90, 40, 170, 10][i as usize % 5],
                chars,
                composition_keys: Some(keys),
            })
            .collect();
        Timing {
            key_times: commits.iter().map(|commit| commit.at).collect(),
            composition_keys: u64::from(keys) * n as u64,
            composition_ms: lasting_ms * n as u64,
            commits,
        }
    }

    #[test]
    fn ime_zi_faster_than_hands() {
        let review = |timing: &Timing| review(Mode::Zh, 9_000, timing, &Thresholds::default());
        // 20 compositions of 3 字 after 3 keys: 60 字 in 4 000 ms is 15 字/s, 45 keys
        // in it are 11.25 keys/s.
        let mut fast = composed(20, 3, 3, 1_000, 200);
        assert_eq!(review(&fast), [Hold::ImeSpeed]);
        fast.composition_ms += 1;
        assert_eq!(review(&fast), []);
        // Too few 字 to judge.
        let few = composed(6, 3, 3, 1_000, 1);
        assert_eq!(review(&few), []);
    }

    #[test]
    fn a_composition_commits_at_most_two_zi_per_key() {
        let review = |timing: &Timing| review(Mode::Zh, 9_000, timing, &Thresholds::default());
        let mut words = composed(8, 2, 4, 1_000, 600);
        // 全国人民代表大会 in four keys.
        words.commits[3].chars = 8;
        assert_eq!(review(&words), []);
        words.commits[3].chars = 9;
        assert_eq!(review(&words), [Hold::ImeKeys]);
        // A composition that claims no keys.
        words.commits[3] = Commit {
            chars: 1,
            composition_keys: Some(0),
            ..words.commits[3]
        };
        assert_eq!(review(&words), [Hold::ImeKeys]);
        // A commit outside compositions is a key per character: not this rule's.
        words.commits[3].composition_keys = None;
        assert_eq!(review(&words), []);
    }

    #[test]
    fn compositions_claim_a_key_per_zi_together() {
        let review = |timing: &Timing| review(Mode::Zh, 9_000, timing, &Thresholds::default());
        // 10 compositions of 2 字: 20 字, at least 20 keys.
        let mut enough = composed(10, 2, 2, 1_000, 600);
        assert_eq!(review(&enough), []);
        enough.commits[0].composition_keys = Some(1);
        assert_eq!(review(&enough), [Hold::ImeKeys]);
        // Under IME_MIN_CHARS 字 the total is not judged.
        let mut few = composed(9, 2, 1, 1_000, 600);
        few.commits.push(Commit {
            at: 9_000,
            chars: 1,
            composition_keys: Some(1),
        });
        assert_eq!(review(&few), []);
    }

    /// Commits at `intervals` apart, `chars` each.
    fn commits(intervals: &[u64], chars: impl Fn(usize) -> u32) -> Timing {
        let mut at = 0;
        let mut commits = vec![Commit {
            at,
            chars: chars(0),
            composition_keys: None,
        }];
        for (i, interval) in intervals.iter().enumerate() {
            at += interval;
            commits.push(Commit {
                at,
                chars: chars(i + 1),
                composition_keys: None,
            });
        }
        // Every character is a key at its commit's instant, as in the English modes.
        let key_times = commits
            .iter()
            .flat_map(|commit| std::iter::repeat_n(commit.at, commit.chars as usize))
            .collect();
        Timing {
            key_times,
            commits,
            ..Timing::default()
        }
    }

    #[test]
    fn a_word_per_tick_is_held_however_its_keys_look() {
        let review = |timing: &Timing| review(Mode::Words, 5_000, timing, &Thresholds::default());
        let word_length = |i: usize| [3, 5, 2, 6, 4][i % 5];
        // One word every 700 ms: the keys' intervals are mostly zero, so only the
        // commits show the tick.
        let ticks = commits(&[700; 40], word_length);
        assert_eq!(review(&ticks), [Hold::Regular]);
        // A wait in proportion to the word: 150 ms per character.
        let paced: Vec<u64> = (1..=40).map(|i| 150 * u64::from(word_length(i))).collect();
        assert_eq!(review(&commits(&paced, word_length)), [Hold::Regular]);
        // At the bound: alternating 210 and 190 ms is a coefficient of variation of 0.05.
        let alternating: Vec<u64> = (0..40).map(|i| [210, 190][i % 2]).collect();
        assert_eq!(review(&commits(&alternating, |_| 3)), [Hold::Regular]);
        // Just over it, and too few commits to judge.
        let wider: Vec<u64> = (0..40).map(|i| [211, 189][i % 2]).collect();
        assert_eq!(review(&commits(&wider, |_| 3)), []);
        let short = [700; COMMIT_WINDOW * COMMIT_MIN_WINDOWS - 1];
        assert_eq!(review(&commits(&short, word_length)), []);
    }

    #[test]
    fn a_metronome_at_the_bound_is_held() {
        // Alternating 115 and 85 ms: a coefficient of variation of exactly 0.15.
        let at_bound = timing((0..200).map(|i| [115, 85][i % 2]));
        assert_eq!(
            review(Mode::Quote, 8_000, &at_bound, &Thresholds::default()),
            [Hold::Regular]
        );
        let over = timing((0..200).map(|i| [116, 84][i % 2]));
        assert_eq!(
            review(Mode::Quote, 8_000, &over, &Thresholds::default()),
            []
        );
    }

    #[test]
    fn thresholds_read_from_a_flag() {
        let t: Thresholds = " time=180 , zh=300".parse().unwrap();
        assert_eq!(
            Mode::ALL.map(|m| t.value(m)),
            [18_000, 20_000, 20_000, 30_000]
        );
        assert_eq!("".parse::<Thresholds>().unwrap(), Thresholds::default());
        for wrong in ["time", "walk=3", "zh=fast", "zh=-1"] {
            assert!(wrong.parse::<Thresholds>().is_err(), "{wrong}");
        }
        assert!(Hold::ALL.iter().all(|h| Hold::parse(h.id()) == Some(*h)));
    }
}
