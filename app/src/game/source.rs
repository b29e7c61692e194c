//! What the next game is played on: a mode's own texts, a text the player loaded (载文,
//! docs/genda.md), or the day's race. Pure, so it is tested natively.

use crate::practice::PracticeText;
use keydo_core::Mode;
use keydo_core::game::mode::Language;
use keydo_core::text::qq::parse_message;
use keydo_core::text::{LoadedText, TextError};

#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A new prompt of the mode's corpus every game.
    Mode(Mode),
    /// A text the player pasted, shared or opened a link to, 段 after 段.
    Text(Loaded),
    /// The day's race in a language (每日赛文).
    Daily(Language),
    /// A practice game (docs/practice.md): never recorded for a board.
    Practice(PracticeText),
}

impl Source {
    /// The mode the game is played (and scored) in.
    pub fn mode(&self) -> Mode {
        match self {
            Source::Mode(mode) => *mode,
            Source::Text(loaded) => loaded.current().mode(),
            Source::Daily(language) => daily_mode(*language),
            Source::Practice(practice) => practice.mode(),
        }
    }

    /// The mode button that shows pressed: none for a loaded text or the race.
    pub fn picked_mode(&self) -> Option<Mode> {
        match self {
            Source::Mode(mode) => Some(*mode),
            Source::Text(_) | Source::Daily(_) | Source::Practice(_) => None,
        }
    }

    /// What "Next game" plays after this one: a loaded text's next 段 when it has one,
    /// otherwise the same source again.
    pub fn after_finish(&self) -> Source {
        match self {
            Source::Text(loaded) => Source::Text(loaded.next().unwrap_or_else(|| loaded.clone())),
            other => other.clone(),
        }
    }
}

/// The mode the day's race of `language` is played in: its passages are the `zh` and
/// `quote` corpora's.
pub fn daily_mode(language: Language) -> Mode {
    match language {
        Language::Chinese => Mode::Zh,
        Language::English => Mode::Quote,
    }
}

/// A loaded text: its 段 (one unless it was over the cap) and the one being typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The QQ message's title line, when it had one.
    pub title: Option<String>,
    /// The 段号 the message gave, counted on for the 段 after the first.
    first_segment: Option<u32>,
    segments: Vec<LoadedText>,
    index: usize,
}

impl Loaded {
    /// Reads a paste: a QQ 发文 message (title, body, `-----第12段-…`) or plain text,
    /// normalised and split into 段 (docs/genda.md). `title` is used when the paste has
    /// none (a share's title). Refused only when nothing is left to type.
    pub fn parse(raw: &str, title: Option<&str>) -> Result<Loaded, TextError> {
        let pasted = parse_message(raw);
        let title = pasted.title.or_else(|| {
            title
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_owned)
        });
        Ok(Loaded {
            title,
            first_segment: pasted.segment,
            segments: LoadedText::segments(&pasted.body)?,
            index: 0,
        })
    }

    /// The 段 being typed.
    pub fn current(&self) -> &LoadedText {
        &self.segments[self.index]
    }

    /// The 段号 of the 段 being typed: the message's, counted on; or its place when a
    /// long text was split; none for a single 段 the message did not number.
    pub fn segment_no(&self) -> Option<u32> {
        let index = u32::try_from(self.index).unwrap_or(u32::MAX);
        match self.first_segment {
            Some(first) => Some(first.saturating_add(index)),
            None if self.segments.len() > 1 => Some(index.saturating_add(1)),
            None => None,
        }
    }

    /// "第3段 of 5" style progress for a split text: (place, count), 1-based.
    pub fn progress(&self) -> (usize, usize) {
        (self.index + 1, self.segments.len())
    }

    /// The next 段, if there is one.
    pub fn next(&self) -> Option<Loaded> {
        (self.index + 1 < self.segments.len()).then(|| Loaded {
            index: self.index + 1,
            ..self.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_qq_message_loads_with_its_title_and_segment_number() {
        let message =
            "《春》\r\n盼望着，盼望着，东风来了，春天的脚步近了。\r\n-----第12段-余345字-共1000字";
        let loaded = Loaded::parse(message, Some("shared title")).unwrap();
        assert_eq!(loaded.title.as_deref(), Some("《春》"));
        assert_eq!(loaded.segment_no(), Some(12));
        assert_eq!(
            loaded.current().as_str(),
            "盼望着，盼望着，东风来了，春天的脚步近了。"
        );
        let source = Source::Text(loaded.clone());
        assert_eq!(source.mode(), Mode::Zh);
        assert_eq!(source.picked_mode(), None);
        // One 段: the next game types it again.
        assert_eq!(source.after_finish(), source);
    }

    #[test]
    fn a_long_text_is_typed_segment_after_segment() {
        let sentence = "天气很好，我们一起去公园散步吧。";
        let long = sentence.repeat(400); // 6,400 字: over the 3,000 cap.
        let loaded = Loaded::parse(&long, Some("  ")).unwrap();
        assert_eq!(loaded.title, None, "a blank share title is none");
        let (_, count) = loaded.progress();
        assert!(count >= 3, "{count}");
        assert_eq!(loaded.segment_no(), Some(1));
        let mut source = Source::Text(loaded);
        for place in 2..=count {
            source = source.after_finish();
            let Source::Text(loaded) = &source else {
                unreachable!()
            };
            assert_eq!(loaded.progress(), (place, count));
            assert_eq!(loaded.segment_no(), Some(place as u32));
        }
        // After the last 段 the last one stays.
        assert_eq!(source.after_finish(), source);
    }

    #[test]
    fn an_english_share_keeps_its_title_and_plays_by_the_english_rules() {
        let loaded =
            Loaded::parse("  It was the best\u{200b} of times.  ", Some("Dickens")).unwrap();
        assert_eq!(loaded.title.as_deref(), Some("Dickens"));
        assert_eq!(loaded.current().as_str(), "It was the best of times.");
        assert_eq!(loaded.segment_no(), None);
        assert_eq!(Source::Text(loaded).mode(), Mode::Quote);
        assert_eq!(Source::Daily(Language::English).mode(), Mode::Quote);
        assert_eq!(Source::Daily(Language::Chinese).mode(), Mode::Zh);
    }

    #[test]
    fn nothing_to_type_is_refused() {
        assert_eq!(
            Loaded::parse(" \u{200b}\u{feff} ", None),
            Err(TextError::Empty)
        );
    }
}
