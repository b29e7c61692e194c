//! The speed chart's geometry, pure so it is tested natively: from the per-second
//! samples to the two lines' SVG points and the axes' extents.

use keydo_core::Mode;
use keydo_core::game::score::Stats;

/// The drawing's own units; the figure stretches it (see the chart component).
pub const WIDTH: f64 = 600.0;
pub const HEIGHT: f64 = 200.0;

/// The y axis never ends below this, so a slow game does not look like a fast one.
const MIN_Y_MAX: f64 = 10.0;

/// Everything the chart draws.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    /// The speed so far at each second (what the value is at that moment).
    pub net: Vec<(f64, f64)>,
    /// Keystrokes within each second, in the mode's unit per minute.
    pub raw: Vec<(f64, f64)>,
    /// The x axis's end, in seconds (at least 1).
    pub max_x: f64,
    /// The y axis's end, in the mode's unit: a whole number, at least [`MIN_Y_MAX`].
    pub max_y: f64,
}

impl Plot {
    /// The plot of a game of `mode` from its cumulative samples.
    pub fn new(mode: Mode, samples: &[Stats]) -> Plot {
        let seconds = |s: &Stats| s.duration_ms as f64 / 1000.0;
        let net: Vec<(f64, f64)> = samples
            .iter()
            .map(|s| (seconds(s), mode.speed(s)))
            .collect();
        let start = Stats {
            duration_ms: 0,
            correct_chars: 0,
            errors: 0,
            keystrokes: 0,
            correct_keystrokes: 0,
        };
        let raw = std::iter::once(&start)
            .chain(samples)
            .zip(samples)
            .map(|(before, after)| (seconds(after), raw_speed(mode, before, after)))
            .collect::<Vec<_>>();
        let max_x = net.last().map_or(1.0, |(x, _)| x.max(1.0));
        let max_y = raw
            .iter()
            .chain(&net)
            .map(|(_, y)| *y)
            .fold(MIN_Y_MAX, f64::max)
            .ceil();
        Plot {
            net,
            raw,
            max_x,
            max_y,
        }
    }

    /// The speed at the last sample.
    pub fn final_speed(&self) -> f64 {
        self.net.last().map_or(0.0, |(_, y)| *y)
    }

    /// A line as SVG `points`: x to the right, speed upwards, in [`WIDTH`] × [`HEIGHT`].
    pub fn points(&self, line: &[(f64, f64)]) -> String {
        line.iter()
            .map(|(x, y)| {
                let px = x / self.max_x * WIDTH;
                let py = HEIGHT * (1.0 - y / self.max_y);
                format!("{px:.1},{py:.1}")
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Keystrokes per minute from `before` to `after`, in the mode's unit (a word is
/// [`Mode::chars_per_unit`] keystrokes). An interval of no time has no speed: 0.
fn raw_speed(mode: Mode, before: &Stats, after: &Stats) -> f64 {
    let keys = f64::from(after.keystrokes.saturating_sub(before.keystrokes));
    let minutes = after.duration_ms.saturating_sub(before.duration_ms) as f64 / 60_000.0;
    if minutes == 0.0 {
        return 0.0;
    }
    keys / f64::from(mode.chars_per_unit()) / minutes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(duration_ms: u64, correct_chars: u32, keystrokes: u32) -> Stats {
        Stats {
            duration_ms,
            correct_chars,
            errors: 0,
            keystrokes,
            correct_keystrokes: keystrokes,
        }
    }

    #[test]
    fn english_speeds_count_five_keystrokes_to_a_word() {
        // 25 characters in the first second, 5 in the second.
        let plot = Plot::new(Mode::Words, &[sample(1_000, 25, 25), sample(2_000, 30, 30)]);
        assert_eq!(plot.net, [(1.0, 300.0), (2.0, 180.0)]);
        assert_eq!(plot.raw, [(1.0, 300.0), (2.0, 60.0)]);
        assert_eq!((plot.max_x, plot.max_y), (2.0, 300.0));
        assert_eq!(plot.final_speed(), 180.0);
    }

    #[test]
    fn chinese_speeds_count_each_keystroke() {
        let plot = Plot::new(Mode::Zh, &[sample(1_000, 2, 3), sample(1_500, 3, 4)]);
        assert_eq!(plot.net, [(1.0, 120.0), (1.5, 120.0)]);
        // One keystroke in half a second: 120 a minute.
        assert_eq!(plot.raw, [(1.0, 180.0), (1.5, 120.0)]);
        assert_eq!(plot.max_y, 180.0);
    }

    #[test]
    fn points_span_the_drawing_with_speed_upwards() {
        let plot = Plot::new(Mode::Time, &[sample(1_000, 5, 5), sample(2_000, 10, 15)]);
        // max_y is the raw 120 of the second second.
        assert_eq!(plot.max_y, 120.0);
        assert_eq!(plot.points(&plot.net), "300.0,100.0 600.0,100.0");
        assert_eq!(plot.points(&plot.raw), "300.0,100.0 600.0,0.0");
    }

    #[test]
    fn slow_short_or_empty_games_keep_sane_axes() {
        let empty = Plot::new(Mode::Quote, &[]);
        assert_eq!((empty.max_x, empty.max_y), (1.0, MIN_Y_MAX));
        assert_eq!(empty.points(&empty.net), "");
        assert_eq!(empty.final_speed(), 0.0);
        // Half a second in, at a crawl: the axes stay at their minimum.
        let slow = Plot::new(Mode::Quote, &[sample(500, 0, 0)]);
        assert_eq!((slow.max_x, slow.max_y), (1.0, MIN_Y_MAX));
        // A fractional peak rounds the axis up to a whole number.
        let fractional = Plot::new(Mode::Words, &[sample(7_000, 30, 31)]);
        assert_eq!(fractional.max_y, 54.0);
        assert!(fractional.raw.iter().all(|(_, y)| y.is_finite()));
    }

    #[test]
    fn a_sample_at_the_same_moment_has_no_speed_not_infinity() {
        let plot = Plot::new(Mode::Words, &[sample(1_000, 5, 5), sample(1_000, 5, 6)]);
        assert_eq!(plot.raw[1], (1.0, 0.0));
        assert!(plot.max_y.is_finite());
    }
}
