//! The report's passage, per-second strip and 速度损失 line as plain data and text,
//! pure so they are tested natively (docs/scoring.md, "The report").

use keydo_core::Mode;
use keydo_core::game::report::{Report, SpeedLoss};
use std::ops::Range;

/// One unit of the passage as the report draws it.
#[derive(Debug, Clone, PartialEq)]
pub struct UnitView {
    /// Its characters.
    pub text: String,
    /// Its percentile bucket (0 the fastest fifth), which picks its colour.
    pub bucket: u8,
    /// Its place among the slowest units, 1 the slowest, if it is one of them.
    pub slow_rank: Option<usize>,
    /// Its time, `1.25 s`: marked after the slowest, and in every unit's title.
    pub seconds: String,
    /// What the unit's title (hover) and accessible name say: the time and its marks,
    /// so the report reads without colour.
    pub title: String,
    /// A 回改 spot touched it.
    pub corrected: bool,
    /// Some character of it is wrong in the final text.
    pub wrong: bool,
}

/// Every unit of `report` on `target` (the prompt's characters), in order.
pub fn unit_views(report: &Report, target: &[char]) -> Vec<UnitView> {
    report
        .units
        .iter()
        .enumerate()
        .map(|(index, unit)| {
            let text: String = target
                .get(unit.span.clone())
                .unwrap_or_default()
                .iter()
                .collect();
            let slow_rank = report
                .slowest
                .iter()
                .position(|&slow| slow == index)
                .map(|place| place + 1);
            let seconds = seconds(unit.ms);
            let mut title = seconds.clone();
            if let Some(rank) = slow_rank {
                title.push_str(&format!(", slowest #{rank}"));
            }
            if unit.corrected {
                title.push_str(", 回改");
            }
            if unit.wrong {
                title.push_str(", 错");
            }
            UnitView {
                text,
                bucket: unit.bucket,
                slow_rank,
                seconds,
                title,
                corrected: unit.corrected,
                wrong: unit.wrong,
            }
        })
        .collect()
}

/// The prompt's characters after the last unit: what the game never reached.
pub fn untyped_rest(report: &Report, target: &[char]) -> String {
    let end = report.units.last().map_or(0, |unit| unit.span.end);
    target.get(end..).unwrap_or_default().iter().collect()
}

/// `1.25 s`.
fn seconds(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

/// The indices of the units with a character committed in second `second` (an empty
/// range for a second out of the game). Units tile the typed part of the prompt in
/// order and a second's characters are one range, so these are one range of units.
pub fn units_in_second(report: &Report, second: usize) -> Range<usize> {
    let Some(chars) = report.timeline.get(second).filter(|r| !r.is_empty()) else {
        return 0..0;
    };
    let first = report
        .units
        .partition_point(|unit| unit.span.end <= chars.start);
    let end = report
        .units
        .partition_point(|unit| unit.span.start < chars.end);
    first..end.max(first)
}

/// The strip's bar for each second: how many characters it committed, as a share of
/// the busiest second's (0 to 1).
pub fn second_heights(report: &Report) -> Vec<f64> {
    let busiest = report.timeline.iter().map(|r| r.len()).max().unwrap_or(0);
    report
        .timeline
        .iter()
        .map(|chars| {
            if busiest == 0 {
                0.0
            } else {
                chars.len() as f64 / busiest as f64
            }
        })
        .collect()
}

/// The 速度损失 line: the speed as scored, then without 回改 time, without the longest
/// pause and without the 错字 penalty (errors, in English), each where one is left.
pub fn speed_loss_line(mode: Mode, loss: &SpeedLoss) -> String {
    let speed = |value: f64| mode.format_speed(value);
    let mut parts = vec![format!("{} as scored", speed(loss.speed))];
    if let Some(without) = loss.without_corrections {
        parts.push(format!(
            "{} without 回改 ({})",
            speed(without),
            seconds(loss.correction_ms)
        ));
    }
    if let (Some(without), Some(pause)) = (loss.without_longest_pause, loss.longest_pause) {
        parts.push(format!(
            "{} without the longest pause ({})",
            speed(without),
            seconds(pause.ms)
        ));
    }
    let errors = match mode.language() {
        keydo_core::game::mode::Language::Chinese => "错字",
        keydo_core::game::mode::Language::English => "errors",
    };
    parts.push(format!("{} without {errors}", speed(loss.without_errors)));
    format!("速度损失: {}", parts.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::game::report::report;
    use keydo_core::{Edit, Prompt, Session};

    /// A 中文 game typing `text` one 字 at a time at the given times (ms), with one
    /// wrong 字 at `wrong_at` typed, deleted and typed again 300 ms later.
    fn zh_game(text: &str, times: &[u64], wrong_at: Option<usize>) -> (Report, Vec<char>) {
        let prompt = Prompt::new(text).unwrap();
        let mut session = Session::new(Mode::Zh, &prompt);
        let chars: Vec<char> = text.chars().collect();
        let mut shift = 0;
        for (index, (&ch, &at)) in chars.iter().zip(times).enumerate() {
            if wrong_at == Some(index) {
                session.apply(Edit::Commit("错".into()), at + shift);
                session.apply(Edit::Backspace, at + shift + 150);
                shift += 300;
            }
            session.apply(Edit::Commit(ch.to_string()), at + shift);
        }
        assert!(session.is_finished());
        (
            report(Mode::Zh, &prompt, &session.input_log()).unwrap(),
            chars,
        )
    }

    #[test]
    fn the_slowest_unit_is_ranked_first_and_titled_with_its_seconds() {
        // 字 3 waits 2.5 s: the slowest, by far.
        let times = [0, 400, 800, 3_300, 3_700, 4_100];
        let (report, target) = zh_game("天地玄黄宇宙", &times, None);
        let views = unit_views(&report, &target);
        assert_eq!(views.len(), 6);
        let slowest = views.iter().find(|v| v.slow_rank == Some(1)).unwrap();
        assert_eq!(slowest.text, "玄");
        assert_eq!(slowest.seconds, "2.50 s");
        assert!(slowest.title.starts_with("2.50 s, slowest #1"));
        assert_eq!(slowest.bucket, report.units[2].bucket);
        // Every unit names its own time, slow or not.
        for (view, unit) in views.iter().zip(&report.units) {
            assert!(view.title.starts_with(&seconds(unit.ms)));
        }
        let text: String = views.iter().map(|v| v.text.as_str()).collect();
        assert_eq!(text + &untyped_rest(&report, &target), "天地玄黄宇宙");
    }

    #[test]
    fn a_corrected_unit_says_so_in_its_title() {
        let times = [0, 400, 800, 1_200, 1_600, 2_000];
        let (report, target) = zh_game("天地玄黄宇宙", &times, Some(3));
        let views = unit_views(&report, &target);
        let corrected: Vec<&str> = views
            .iter()
            .filter(|v| v.corrected)
            .map(|v| v.text.as_str())
            .collect();
        assert_eq!(corrected, ["黄"]);
        assert!(views[3].title.contains("回改"));
        assert!(!views[0].title.contains("回改"));
    }

    #[test]
    fn a_second_lights_the_units_committed_in_it() {
        // Two 字 in the first second, three in the second, one in the third.
        let times = [0, 500, 1_100, 1_400, 1_800, 2_300];
        let (report, target) = zh_game("天地玄黄宇宙", &times, None);
        let lit = |second| -> String {
            units_in_second(&report, second)
                .map(|unit| unit_views(&report, &target)[unit].text.clone())
                .collect()
        };
        for second in 0..report.timeline.len() {
            let chars: String = target[report.timeline[second].clone()].iter().collect();
            assert_eq!(lit(second), chars, "second {second}");
        }
        assert_eq!(lit(0), "天地");
        assert_eq!(units_in_second(&report, 99), 0..0);
        let heights = second_heights(&report);
        assert_eq!(heights.len(), report.timeline.len());
        assert!(heights.iter().all(|h| (0.0..=1.0).contains(h)));
        assert!(heights.contains(&1.0));
    }

    #[test]
    fn the_speed_loss_line_names_each_loss_in_the_mode_unit() {
        let times = [0, 400, 800, 3_300, 3_700, 4_100];
        let (report, _) = zh_game("天地玄黄宇宙", &times, Some(1));
        let line = speed_loss_line(Mode::Zh, &report.speed_loss);
        let loss = report.speed_loss;
        assert!(line.starts_with(&format!(
            "速度损失: {} as scored",
            Mode::Zh.format_speed(loss.speed)
        )));
        let without_pause = loss.without_longest_pause.unwrap();
        assert!(line.contains(&format!(
            "{} without the longest pause (2.",
            Mode::Zh.format_speed(without_pause)
        )));
        assert!(line.contains("without 回改"));
        assert!(line.ends_with("without 错字"));
        assert!(speed_loss_line(Mode::Quote, &loss).ends_with("without errors"));
    }
}
