//! The result's figures as rows of text, pure so they are tested natively: which
//! figures a mode shows, under which names, and how each is written.

use keydo_core::Mode;
use keydo_core::game::figures::Figures;
use keydo_core::game::mode::Language;
use keydo_core::game::score::Stats;

/// One figure below the headline.
#[derive(Debug, Clone, PartialEq)]
pub struct FigureRow {
    /// Names the row for tests: `figure-<id>`.
    pub id: &'static str,
    pub name: &'static str,
    pub figure: String,
}

/// The rows of a game of `mode` that ended with `stats` and measured `figures`: the
/// common ones, then the language's own (for 中文 the 击键, 码长 and 回改 跟打 players
/// compare), then the player's input method when one is set (跟打 results are read with
/// it; only a 中文 game shows it).
pub fn figure_rows(
    mode: Mode,
    stats: &Stats,
    figures: &Figures,
    input_method: Option<&str>,
) -> Vec<FigureRow> {
    let row = |id, name, figure| FigureRow { id, name, figure };
    let typed = stats.correct_chars + stats.errors;
    let mut rows = vec![
        row(
            "accuracy",
            "Accuracy",
            format!("{:.1} %", figures.accuracy * 100.0),
        ),
        row("raw", "Raw", mode.format_speed(figures.raw_speed)),
        row(
            "consistency",
            "Consistency",
            figures
                .consistency
                .map_or_else(|| "—".to_owned(), |c| format!("{:.0} %", c * 100.0)),
        ),
        row("time", "Time", format!("{:.1} s", figures.seconds)),
    ];
    match mode.language() {
        Language::Chinese => {
            rows.extend([
                row(
                    "keys-per-second",
                    "击键",
                    format!("{:.2} /s", figures.keys_per_second),
                ),
                row(
                    "keys-per-char",
                    "码长",
                    figures
                        .keys_per_char
                        .map_or_else(|| "—".to_owned(), |k| format!("{k:.2}")),
                ),
                row("corrections", "回改", figures.corrections.to_string()),
                row("typed", "字数", format!("{typed} 字")),
                row("errors", "错字", stats.errors.to_string()),
            ]);
            if let Some(label) = input_method.filter(|label| !label.is_empty()) {
                rows.push(row("input-method", "输入法", label.to_owned()));
            }
        }
        Language::English => rows.extend([
            row("typed", "Characters", typed.to_string()),
            row("errors", "Errors", stats.errors.to_string()),
        ]),
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: Stats = Stats {
        duration_ms: 30_000,
        correct_chars: 118,
        errors: 2,
        keystrokes: 130,
        correct_keystrokes: 124,
    };

    fn figures(consistency: Option<f64>, keys_per_char: Option<f64>) -> Figures {
        Figures {
            speed: 47.2,
            raw_speed: 52.04,
            accuracy: 0.9538,
            consistency,
            seconds: 30.0,
            keys_per_second: 4.333,
            keys_per_char,
            corrections: 3,
        }
    }

    fn written(rows: &[FigureRow]) -> Vec<(&str, &str, &str)> {
        rows.iter()
            .map(|r| (r.id, r.name, r.figure.as_str()))
            .collect()
    }

    #[test]
    fn an_english_game_shows_the_common_figures_and_its_characters() {
        let rows = figure_rows(Mode::Time, &STATS, &figures(Some(0.814), None), None);
        assert_eq!(
            written(&rows),
            [
                ("accuracy", "Accuracy", "95.4 %"),
                ("raw", "Raw", "52.0 WPM"),
                ("consistency", "Consistency", "81 %"),
                ("time", "Time", "30.0 s"),
                ("typed", "Characters", "120"),
                ("errors", "Errors", "2"),
            ]
        );
    }

    #[test]
    fn a_chinese_game_adds_the_tracker_figures_and_the_input_method() {
        let rows = figure_rows(
            Mode::Zh,
            &STATS,
            &figures(Some(0.5), Some(1.0833)),
            Some("小鹤音形"),
        );
        let ids: Vec<&str> = rows.iter().map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "accuracy",
                "raw",
                "consistency",
                "time",
                "keys-per-second",
                "keys-per-char",
                "corrections",
                "typed",
                "errors",
                "input-method"
            ]
        );
        assert_eq!(
            written(&rows[4..]),
            [
                ("keys-per-second", "击键", "4.33 /s"),
                ("keys-per-char", "码长", "1.08"),
                ("corrections", "回改", "3"),
                ("typed", "字数", "120 字"),
                ("errors", "错字", "2"),
                ("input-method", "输入法", "小鹤音形"),
            ]
        );
    }

    #[test]
    fn a_figure_without_a_value_reads_as_a_dash_and_an_empty_input_method_is_left_out() {
        let rows = figure_rows(Mode::Zh, &STATS, &figures(None, None), Some(""));
        let figure = |id| rows.iter().find(|r| r.id == id).map(|r| r.figure.as_str());
        assert_eq!(figure("consistency"), Some("—"));
        assert_eq!(figure("keys-per-char"), Some("—"));
        assert_eq!(figure("input-method"), None);
    }

    #[test]
    fn an_english_game_never_shows_an_input_method() {
        let rows = figure_rows(Mode::Quote, &STATS, &figures(None, None), Some("Dvorak"));
        assert!(rows.iter().all(|r| r.id != "input-method"));
    }
}
