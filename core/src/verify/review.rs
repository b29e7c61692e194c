//! Which verified results wait for an operator before they reach the public boards:
//! the very fast, and those whose timing no person produces (docs/replay.md).
//!
//! A held result is accepted and counts for its player; only its place on the public
//! boards waits for approval. The rules (each a [`Hold`]):
//! - [`Hold::Speed`]: the value is above the mode's review threshold (by default
//!   200 WPM in the English modes and 200 字/分 in `zh`, near the top of human records).
//! - [`Hold::Burst`]: some [`WINDOW`] consecutive intervals between keys add up to less
//!   than [`WINDOW`] × [`BURST_FLOOR_MS`]: 21 keys within 600 ms is ~400 WPM sustained
//!   over four words, beyond anyone's bursts. Text committed at once counts as that many
//!   keys at one instant, so a pasted or scripted chunk trips this rule.
//! - [`Hold::Regular`]: people's intervals vary. Over windows of [`WINDOW`] intervals
//!   (non-overlapping, at least [`MIN_WINDOWS`]), the median coefficient of variation
//!   (standard deviation / mean) below [`REGULAR_MAX_CV`] is a metronome: typists
//!   measure 0.3 and more, a script with a fixed delay about 0.
//! - [`Hold::ImeSpeed`]: keys inside IME compositions faster than
//!   [`IME_MAX_KEYS_PER_SECOND`] over all compositions (at least [`IME_MIN_KEYS`] keys).

use crate::game::mode::Mode;
use crate::verify::replay::Timing;
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

/// Why a result waits for review. The ids are stable: they are stored and listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Hold {
    Speed,
    Burst,
    Regular,
    ImeSpeed,
    /// Set by the server, not by [`review`]: it would enter a board's top places.
    TopPlace,
    /// Set by the server: it beats the player's public best by the leap margin.
    Leap,
    /// Set by the server: its save has too little verified typing behind it.
    LittleTyping,
}

impl Hold {
    pub const ALL: [Hold; 7] = [
        Hold::Speed,
        Hold::Burst,
        Hold::Regular,
        Hold::ImeSpeed,
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
    /// The value above which a result of `mode` is held.
    pub fn value(&self, mode: Mode) -> i64 {
        self.0[Self::index(mode)]
    }

    /// Holds `mode` above `speed` (WPM or 字/分).
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
    let intervals: Vec<u64> = timing.key_times.windows(2).map(|w| w[1] - w[0]).collect();
    let rules = [
        (Hold::Speed, value > thresholds.value(mode)),
        (Hold::Burst, has_burst(&intervals)),
        (Hold::Regular, is_regular(&intervals)),
        (Hold::ImeSpeed, ime_too_fast(timing)),
    ];
    rules
        .into_iter()
        .filter_map(|(hold, broken)| broken.then_some(hold))
        .collect()
}

fn has_burst(intervals: &[u64]) -> bool {
    let floor = WINDOW as u64 * BURST_FLOOR_MS;
    intervals
        .windows(WINDOW)
        .any(|window| window.iter().sum::<u64>() < floor)
}

fn is_regular(intervals: &[u64]) -> bool {
    let mut cvs: Vec<f64> = intervals
        .chunks_exact(WINDOW)
        .map(coefficient_of_variation)
        .collect();
    if cvs.len() < MIN_WINDOWS {
        return false;
    }
    cvs.sort_by(f64::total_cmp);
    cvs[cvs.len() / 2] < REGULAR_MAX_CV
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

fn ime_too_fast(timing: &Timing) -> bool {
    timing.composition_keys >= IME_MIN_KEYS
        && timing.composition_keys * 1_000 > IME_MAX_KEYS_PER_SECOND * timing.composition_ms
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
        // Exactly at the threshold is not above it.
        assert_eq!(
            review(Mode::Zh, 20_000, &timing(human(100)), &thresholds),
            []
        );
    }

    #[test]
    fn above_the_threshold_waits() {
        let thresholds: Thresholds = "words=250".parse().unwrap();
        assert_eq!(
            review(Mode::Time, 20_001, &timing(human(600)), &thresholds),
            [Hold::Speed]
        );
        assert_eq!(
            review(Mode::Words, 25_000, &timing(human(600)), &thresholds),
            []
        );
        assert_eq!(
            review(Mode::Words, 25_001, &timing(human(600)), &thresholds),
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
        intervals.splice(40..40 + WINDOW, std::iter::repeat_n(29, WINDOW));
        assert_eq!(
            review(
                Mode::Words,
                9_000,
                &timing(intervals.clone()),
                &Thresholds::default()
            ),
            [Hold::Burst]
        );
        intervals[45] = 50; // that window now sums to 601 ms
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
        fast.composition_ms = 3_999; // 25.006 keys/s
        assert_eq!(
            review(Mode::Zh, 9_000, &fast, &Thresholds::default()),
            [Hold::ImeSpeed]
        );
        fast.composition_ms = 4_000;
        assert_eq!(review(Mode::Zh, 9_000, &fast, &Thresholds::default()), []);
        fast.composition_keys = IME_MIN_KEYS - 1;
        fast.composition_ms = 1;
        assert_eq!(review(Mode::Zh, 9_000, &fast, &Thresholds::default()), []);
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
