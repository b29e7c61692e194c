//! The progress view's geometry and words, pure so they are tested natively: a key's
//! or a 字's colour level from its confidence, the keyboard's layout, a sparkline's
//! points, and the label that says every value without colour.

use keydo_core::practice::stats::UnitRecord;

/// Colour levels from red (0) to green (this), as classes `conf-0` … `conf-10`.
pub const LEVELS: f64 = 10.0;
/// A key's side in the keyboard drawing's units; the gap between keys is a tenth.
pub const KEY: f64 = 40.0;
const GAP: f64 = 4.0;
/// The sparkline's drawing size.
pub const SPARK_WIDTH: f64 = 120.0;
pub const SPARK_HEIGHT: f64 = 30.0;

/// The class that colours a unit: `conf-0` (far below the target) to `conf-10` (at or
/// above it), `conf-none` before its first sample.
pub fn confidence_class(confidence: Option<f64>) -> String {
    match confidence {
        Some(c) => format!("conf-{}", (c.clamp(0.0, 1.0) * LEVELS).floor() as u8),
        None => "conf-none".to_owned(),
    }
}

/// The letter keys of a QWERTY keyboard and where each is drawn (its top-left corner),
/// rows shifted as on a real keyboard.
pub fn keyboard() -> Vec<(char, f64, f64)> {
    const ROWS: [(&str, f64); 3] = [("qwertyuiop", 0.0), ("asdfghjkl", 0.25), ("zxcvbnm", 0.75)];
    ROWS.iter()
        .enumerate()
        .flat_map(|(row, (letters, shift))| {
            letters.chars().enumerate().map(move |(column, letter)| {
                let x = (column as f64 + shift) * (KEY + GAP);
                (letter, x, row as f64 * (KEY + GAP))
            })
        })
        .collect()
}

/// The keyboard drawing's width and height.
pub fn keyboard_size() -> (f64, f64) {
    (10.0 * (KEY + GAP), 3.0 * (KEY + GAP))
}

/// The points of a line through `values` (oldest first) across `width` × `height`,
/// from 0 at the bottom to the largest value at the top; `None` under two values.
pub fn sparkline(values: &[u32], width: f64, height: f64) -> Option<String> {
    if values.len() < 2 {
        return None;
    }
    let max = f64::from(values.iter().copied().max().unwrap_or(0).max(1));
    let step = width / (values.len() - 1) as f64;
    Some(
        values
            .iter()
            .enumerate()
            .map(|(i, &v)| {
                let y = height - f64::from(v) / max * height;
                format!("{:.1},{y:.1}", i as f64 * step)
            })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// A speed kept × 100, as shown: "42.5".
pub fn speed(centi: u32) -> String {
    format!("{:.1}", f64::from(centi) / 100.0)
}

/// Everything known about a unit, in words (its title and accessible name): `unit`
/// typed in `speed_unit`, at `confidence` of the target.
pub fn unit_label(
    unit: char,
    record: Option<&UnitRecord>,
    confidence: Option<f64>,
    speed_unit: &str,
) -> String {
    match (record, confidence) {
        (Some(r), Some(c)) => format!(
            "{unit}: last {} {speed_unit}, best {} {speed_unit}, {} missed, {:.0}% of the target",
            speed(r.last_speed),
            speed(r.best_speed),
            r.misses,
            c * 100.0
        ),
        (Some(r), None) => format!("{unit}: not timed yet, {} missed", r.misses),
        (None, _) => format!("{unit}: not typed yet"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn confidence_runs_from_red_to_green_and_caps_at_the_target() {
        assert_eq!(confidence_class(None), "conf-none");
        assert_eq!(confidence_class(Some(0.0)), "conf-0");
        assert_eq!(confidence_class(Some(0.349)), "conf-3");
        assert_eq!(confidence_class(Some(0.99)), "conf-9");
        assert_eq!(confidence_class(Some(1.0)), "conf-10");
        assert_eq!(confidence_class(Some(2.5)), "conf-10");
    }

    #[test]
    fn the_keyboard_has_every_letter_once_inside_its_drawing() {
        let keys = keyboard();
        let mut letters: Vec<char> = keys.iter().map(|k| k.0).collect();
        letters.sort_unstable();
        assert_eq!(letters, ('a'..='z').collect::<Vec<_>>());
        let (width, height) = keyboard_size();
        assert!(
            keys.iter()
                .all(|&(_, x, y)| x + KEY <= width && y + KEY <= height)
        );
    }

    #[test]
    fn a_sparkline_spans_its_box_from_zero_to_the_largest_value() {
        assert_eq!(sparkline(&[500], 100.0, 10.0), None);
        assert_eq!(
            sparkline(&[0, 500, 1000], 100.0, 10.0).unwrap(),
            "0.0,10.0 50.0,5.0 100.0,0.0"
        );
    }

    #[test]
    fn a_label_says_every_value_in_words() {
        let record = UnitRecord {
            last_speed: 3_150,
            best_speed: 4_000,
            misses: 2,
            ..UnitRecord::default()
        };
        assert_eq!(
            unit_label('e', Some(&record), Some(0.9), "WPM"),
            "e: last 31.5 WPM, best 40.0 WPM, 2 missed, 90% of the target"
        );
        assert_eq!(unit_label('字', None, None, "字/分"), "字: not typed yet");
    }
}
