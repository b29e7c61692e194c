//! 练错字 / 练慢字: a short practice of the words or 字 one game went wrong on or typed
//! slowest (docs/practice.md, "练错字 / 练慢字"). Read from the game's 跟打 report, which
//! the result screen computes once anyway.

use crate::game::mode::{Language, Mode};
use crate::game::prompt::Prompt;
use crate::game::report::Report;
use crate::practice::stats::is_hanzi;

/// At most this many English words are practised...
pub const MAX_WORDS: usize = 20;
/// ...or this many 字.
pub const MAX_ZI: usize = 50;
/// The practice types the chosen units this many times over.
pub const ROUNDS: usize = 3;
/// 练慢字 takes the slowest of every this many units (a fifth: the report's slowest
/// bucket), at least one.
const SLOWEST_SHARE: usize = 5;

/// Which units a drill practises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrillKind {
    /// 练错字: units with a character wrong at the end or typed wrong and corrected.
    Missed,
    /// 练慢字: the slowest fifth of the units by time per character.
    Slowest,
}

/// The units one game gives a drill of one kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Drill {
    pub kind: DrillKind,
    pub language: Language,
    /// English words or single 字, each once: in prompt order for
    /// [`DrillKind::Missed`], slowest first for [`DrillKind::Slowest`].
    pub units: Vec<String>,
}

impl Drill {
    /// The drill of `kind` for the game `report` is of, on `prompt`: at most
    /// [`MAX_WORDS`] words or [`MAX_ZI`] 字. A Chinese unit that is not a 汉字
    /// (punctuation) is never practised.
    pub fn of(kind: DrillKind, report: &Report, prompt: &Prompt) -> Drill {
        let language = report.mode.language();
        let chars: Vec<char> = prompt.as_str().chars().collect();
        let mut candidates: Vec<(String, f64)> = report
            .units
            .iter()
            .filter(|unit| match kind {
                DrillKind::Missed => unit.wrong || unit.corrected,
                DrillKind::Slowest => true,
            })
            .filter_map(|unit| {
                let text: String = chars[unit.span.clone()].iter().collect();
                let text = text.trim();
                let wanted = match language {
                    Language::English => !text.is_empty(),
                    Language::Chinese => text.chars().all(is_hanzi) && !text.is_empty(),
                };
                let length = text.chars().count().max(1) as f64;
                wanted.then(|| (text.to_owned(), unit.ms as f64 / length))
            })
            .collect();
        let cap = match language {
            Language::English => MAX_WORDS,
            Language::Chinese => MAX_ZI,
        };
        let take = match kind {
            DrillKind::Missed => cap,
            DrillKind::Slowest => {
                // Stable: equally slow units keep their prompt order.
                candidates.sort_by(|a, b| b.1.total_cmp(&a.1));
                candidates.len().div_ceil(SLOWEST_SHARE).min(cap)
            }
        };
        let mut units: Vec<String> = Vec::new();
        for (text, _) in candidates {
            if units.len() == take {
                break;
            }
            if !units.contains(&text) {
                units.push(text);
            }
        }
        Drill {
            kind,
            language,
            units,
        }
    }

    /// The mode the drill is played in: the practice lessons' ([`practice_mode`]).
    pub fn mode(&self) -> Mode {
        practice_mode(self.language)
    }

    /// The units as the player reads them: words separated by spaces, 字 run together.
    pub fn units_text(&self) -> String {
        self.units.join(self.separator())
    }

    /// What the player types: the units [`ROUNDS`] times over; `None` when the game
    /// gave nothing to practise.
    pub fn prompt(&self) -> Option<Prompt> {
        Prompt::new(&vec![self.units_text(); ROUNDS].join(self.separator())).ok()
    }

    fn separator(&self) -> &'static str {
        match self.language {
            Language::English => " ",
            Language::Chinese => "",
        }
    }
}

/// The mode practice in `language` is played (and measured) in: `words` for English,
/// `zh` for Chinese. A practice game is never scored on a board.
pub fn practice_mode(language: Language) -> Mode {
    match language {
        Language::English => Mode::Words,
        Language::Chinese => Mode::Zh,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::report::report;
    use crate::game::typing::{Edit, Session};

    /// Plays `edits` (each at its time) and reports the game.
    fn play(mode: Mode, text: &str, edits: &[(u64, Edit)]) -> (Report, Prompt) {
        let prompt = Prompt::new(text).unwrap();
        let mut session = Session::new(mode, &prompt);
        for (at, edit) in edits {
            session.apply(edit.clone(), *at);
        }
        let report = report(mode, &prompt, &session.input_log()).expect("a finished game");
        (report, prompt)
    }

    fn commit(at: u64, text: &str) -> Vec<(u64, Edit)> {
        vec![
            (at, Edit::CompositionStart),
            (at + 50, Edit::CompositionUpdate("ab".into())),
            (at + 100, Edit::CompositionEnd(text.into())),
        ]
    }

    #[test]
    fn missed_zi_are_the_wrong_and_the_corrected_ones_never_punctuation() {
        // 天 right, 地 typed as 的 and left, 玄 typed as 悬 then corrected, the comma
        // wrong, 黄 right.
        let edits = [
            commit(0, "天"),
            commit(500, "的"),
            commit(1_000, "悬"),
            vec![(1_300, Edit::Backspace)],
            commit(1_500, "玄"),
            vec![(2_000, Edit::Commit(".".into()))],
            commit(2_500, "黄"),
        ]
        .concat();
        let (report, prompt) = play(Mode::Zh, "天地玄，黄", &edits);
        let drill = Drill::of(DrillKind::Missed, &report, &prompt);
        assert_eq!(drill.units, ["地", "玄"]);
        assert_eq!(drill.mode(), Mode::Zh);
        assert_eq!(drill.prompt().unwrap().as_str(), "地玄地玄地玄");
    }

    #[test]
    fn slowest_words_are_the_slowest_fifth_by_time_per_letter() {
        let words = "a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh iiiiiiiii jjjjjjjjjj";
        let mut edits = Vec::new();
        let mut at = 0;
        for (i, word) in words.split(' ').enumerate() {
            // A word's time runs from its first key to the next word's. Every key
            // 100 ms after the one before, but in `ccc` 900 ms and in `ffffff` 400:
            // per letter they are the slowest, not by whole-word time.
            let per_key = match i {
                2 => 900,
                5 => 400,
                _ => 100,
            };
            at += 100;
            for (k, key) in word.chars().chain([' ']).enumerate() {
                if k > 0 {
                    at += per_key;
                }
                edits.push((at, Edit::Commit(key.to_string())));
            }
        }
        let (report, prompt) = play(Mode::Words, words, &edits);
        let drill = Drill::of(DrillKind::Slowest, &report, &prompt);
        assert_eq!(drill.units, ["ccc", "ffffff"], "10 words: the slowest 2");
        assert_eq!(
            drill.prompt().unwrap().as_str(),
            "ccc ffffff ccc ffffff ccc ffffff"
        );
        assert!(
            Drill::of(DrillKind::Missed, &report, &prompt)
                .prompt()
                .is_none()
        );
    }

    #[test]
    fn a_drill_never_exceeds_twenty_words_or_fifty_zi() {
        // 120 字, every one typed wrong: 练错字 takes the first 50 distinct.
        let text: String = ('\u{4E00}'..).take(120).collect();
        let edits: Vec<_> = (0..120u64).flat_map(|i| commit(i * 300, "口")).collect();
        let (report, prompt) = play(Mode::Zh, &text, &edits);
        let drill = Drill::of(DrillKind::Missed, &report, &prompt);
        assert_eq!(drill.units.len(), MAX_ZI);
        assert_eq!(
            drill.units.concat(),
            text.chars().take(50).collect::<String>()
        );

        // 150 distinct English words all typed wrong (an `x` for each first letter).
        let words: Vec<String> = (0..150).map(|i| format!("w{i:03}")).collect();
        let text = words.join(" ");
        let mut at = 0;
        let mut edits = Vec::new();
        for word in &words {
            for (k, letter) in word.chars().enumerate() {
                at += 100;
                let typed = if k == 0 { 'x' } else { letter };
                edits.push((at, Edit::Commit(typed.to_string())));
            }
            at += 100;
            edits.push((at, Edit::Commit(" ".into())));
        }
        let (report, prompt) = play(Mode::Words, &text, &edits);
        let missed = Drill::of(DrillKind::Missed, &report, &prompt);
        assert_eq!(missed.units, words[..MAX_WORDS]);
        let slowest = Drill::of(DrillKind::Slowest, &report, &prompt);
        assert_eq!(
            slowest.units.len(),
            MAX_WORDS,
            "a fifth of 150 is 30: capped"
        );
    }
}
