//! Display names (docs/replay.md): what a name may be, and when two names are the same.
//!
//! A name is NFC-normalised, trimmed, its runs of spaces collapsed to one, and then
//! must be 1–24 grapheme clusters (what a reader counts as characters) with none of:
//! control (Cc), format (Cf, including bidi overrides such as U+202E and zero-width
//! joiners), private-use (Co), unassigned (Cn), line or paragraph separators (Zl, Zp),
//! spaces other than U+0020 (other Zs), and no cluster stacking more than
//! [`MAX_MARKS_PER_CLUSTER`] combining marks. Two names are the same when their
//! compatibility caseless forms are equal (Unicode D146): "Ｋｅｙｄｏ" and "KEYDO" are
//! one name.

use std::fmt;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_segmentation::UnicodeSegmentation;

/// The length bounds of a display name, in grapheme clusters.
pub const DISPLAY_NAME_CHARS: std::ops::RangeInclusive<usize> = 1..=24;

/// The most combining marks one grapheme cluster may carry (enough for any script;
/// "zalgo" text stacks dozens).
pub const MAX_MARKS_PER_CLUSTER: usize = 4;

/// A valid display name, normalised.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DisplayName(String);

impl DisplayName {
    /// Normalises `raw` and checks it against the rules above.
    pub fn parse(raw: &str) -> Result<DisplayName, NameError> {
        let normalised: String = raw.nfc().collect();
        let name = normalised
            .split(' ')
            .filter(|word| !word.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        if let Some(refused) = name.chars().find(|&c| !is_allowed(c)) {
            return Err(NameError::Character(refused));
        }
        let clusters = name.graphemes(true).count();
        if !DISPLAY_NAME_CHARS.contains(&clusters) {
            return Err(NameError::Length(clusters));
        }
        if name
            .graphemes(true)
            .any(|cluster| cluster.chars().filter(|&c| is_mark(c)).count() > MAX_MARKS_PER_CLUSTER)
        {
            return Err(NameError::StackedMarks);
        }
        Ok(DisplayName(name))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// The key two names share when they are the same name: the compatibility caseless
    /// form NFKD(casefold(NFKD(casefold(NFD(name))))), stored NFC.
    pub fn key(&self) -> String {
        let nfd: String = self.0.nfd().collect();
        let once: String = caseless::default_case_fold_str(&nfd).nfkd().collect();
        let twice: String = caseless::default_case_fold_str(&once).nfkd().collect();
        twice.nfc().collect()
    }
}

impl fmt::Display for DisplayName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether `text` holds a character no name may hold (the categories above); other
/// short labels the player types follow the same rule.
pub fn has_refused_character(text: &str) -> bool {
    text.chars().any(|c| !is_allowed(c))
}

fn is_allowed(c: char) -> bool {
    use GeneralCategory::*;
    match c.general_category() {
        Control | Format | PrivateUse | Unassigned | LineSeparator | ParagraphSeparator => false,
        SpaceSeparator => c == ' ',
        _ => true,
    }
}

fn is_mark(c: char) -> bool {
    matches!(
        c.general_category(),
        GeneralCategory::NonspacingMark | GeneralCategory::EnclosingMark
    )
}

/// Why a name is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NameError {
    /// Not 1–24 grapheme clusters (after trimming).
    Length(usize),
    /// A character of a refused category.
    Character(char),
    /// A cluster with more than [`MAX_MARKS_PER_CLUSTER`] combining marks.
    StackedMarks,
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (min, max) = (DISPLAY_NAME_CHARS.start(), DISPLAY_NAME_CHARS.end());
        match self {
            NameError::Length(_) => write!(f, "A display name has {min} to {max} characters."),
            NameError::Character(c) => write!(
                f,
                "A display name cannot contain the character U+{:04X} (control, format, private-use, unassigned or separator characters are not allowed).",
                u32::from(*c)
            ),
            NameError::StackedMarks => write!(
                f,
                "A display name cannot stack more than {MAX_MARKS_PER_CLUSTER} marks on one character."
            ),
        }
    }
}

impl std::error::Error for NameError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(raw: &str) -> String {
        DisplayName::parse(raw).unwrap().into_string()
    }

    #[test]
    fn names_are_normalised() {
        assert_eq!(ok("  键道 Player "), "键道 Player");
        assert_eq!(ok("Swift   Otter 42"), "Swift Otter 42");
        // e + combining acute becomes é (NFC).
        assert_eq!(ok("Caf\u{65}\u{301}"), "Caf\u{e9}");
        assert_eq!(ok(&"字".repeat(24)), "字".repeat(24));
    }

    #[test]
    fn length_counts_what_readers_see() {
        // 24 flags are 48 code points but 24 clusters; 24 é in NFD are 48 code points.
        assert!(DisplayName::parse(&"🇨🇳".repeat(24)).is_ok());
        assert!(DisplayName::parse(&"e\u{301}".repeat(24)).is_ok());
        assert_eq!(
            DisplayName::parse(&"x".repeat(25)),
            Err(NameError::Length(25))
        );
        for blank in ["", "   "] {
            assert_eq!(DisplayName::parse(blank), Err(NameError::Length(0)));
        }
    }

    #[test]
    fn refuses_invisible_and_reordering_characters() {
        for (raw, c) in [
            ("a\u{0}b", '\u{0}'),
            ("tab\there", '\t'),
            ("new\nline", '\n'),
            ("\u{7f}", '\u{7f}'),
            ("evil\u{202e}olleh", '\u{202e}'), // right-to-left override (Cf)
            ("a\u{2066}b", '\u{2066}'),        // left-to-right isolate (Cf)
            ("zero\u{200b}width", '\u{200b}'), // zero-width space (Cf)
            ("a\u{200d}b", '\u{200d}'),        // zero-width joiner (Cf)
            ("\u{e000}", '\u{e000}'),          // private use
            ("\u{10ffff}", '\u{10ffff}'),      // unassigned (a noncharacter)
            ("a\u{2028}b", '\u{2028}'),        // line separator
            ("a\u{2029}b", '\u{2029}'),        // paragraph separator
            ("no\u{a0}break", '\u{a0}'),       // a space other than U+0020
            ("wide\u{3000}space", '\u{3000}'),
        ] {
            assert_eq!(
                DisplayName::parse(raw),
                Err(NameError::Character(c)),
                "{raw:?}"
            );
        }
        let message = DisplayName::parse("evil\u{202e}").unwrap_err().to_string();
        assert!(
            message.starts_with("A display name cannot contain the character U+202E"),
            "{message}"
        );
    }

    #[test]
    fn refuses_stacked_marks() {
        // No precomposed x with an accent exists, so NFC keeps every mark.
        assert!(DisplayName::parse("x\u{301}\u{302}\u{303}\u{304}").is_ok());
        assert_eq!(
            DisplayName::parse("x\u{301}\u{302}\u{303}\u{304}\u{305}"),
            Err(NameError::StackedMarks)
        );
    }

    #[test]
    fn the_same_name_in_other_case_or_width_has_the_same_key() {
        let key = |raw: &str| DisplayName::parse(raw).unwrap().key();
        assert_eq!(key("KeyDo"), key("KEYDO"));
        assert_eq!(key("KeyDo"), key("ｋｅｙｄｏ"));
        assert_eq!(key("Straße"), key("STRASSE"));
        assert_eq!(key("Café"), key("CAFE\u{301}"));
        assert_eq!(key("ǅemal"), key("džemal"));
        assert_ne!(key("KeyDo"), key("Key Do"));
        assert_ne!(key("键道"), key("键盘"));
        assert_eq!(key("Swift Otter 42"), "swift otter 42");
    }
}
