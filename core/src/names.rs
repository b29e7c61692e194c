//! Display names (docs/replay.md): what a name may be, and when two names are the same.
//!
//! A name is NFC-normalised, trimmed, its runs of spaces collapsed to one, and then
//! must be 1–24 grapheme clusters (what a reader counts as characters) with none of:
//! control (Cc), format (Cf, including bidi overrides such as U+202E and zero-width
//! joiners), private-use (Co), unassigned (Cn), line or paragraph separators (Zl, Zp),
//! spaces other than U+0020 (other Zs), and no cluster stacking more than
//! [`MAX_MARKS_PER_CLUSTER`] combining marks. It may hold no character that shows
//! nothing where it stands ([`is_invisible`]: the default-ignorable code points —
//! variation selectors, the combining grapheme joiner, Hangul fillers — and the braille
//! blank), and must show at least one letter, digit, punctuation mark or symbol.
//!
//! Two names are the same when they look the same: their [`look_alike_key`]s are
//! equal. The key is built from the UTS #39 confusable skeleton and the compatibility
//! caseless form (Unicode D146): "Ｋｅｙｄｏ", "KEYDO" and "Kеydo" with a Cyrillic е are
//! one name.

use std::fmt;
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_security::skeleton;
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
        if !name.is_empty() && !name.chars().any(is_visible) {
            return Err(NameError::Blank);
        }
        if let Some(invisible) = name.chars().find(|&c| is_invisible(c)) {
            return Err(NameError::Invisible(invisible));
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

    /// The key two names share when they are the same name: [`look_alike_key`].
    pub fn key(&self) -> String {
        look_alike_key(&self.0)
    }
}

impl fmt::Display for DisplayName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// What two texts that look alike share, for any text (also a stored name from before
/// today's rules): blank characters read as spaces, runs of spaces as one, then the
/// UTS #39 skeleton (which drops default-ignorable code points and maps each character
/// to its prototype, Cyrillic "о" to Latin "o", "1" to "l") of the compatibility
/// caseless form, case-folded once more (the prototype of "0" is "O"), stored NFC.
pub fn look_alike_key(text: &str) -> String {
    let spaced: String = text
        .chars()
        .map(|c| if BLANK_GLYPHS.contains(&c) { ' ' } else { c })
        .collect();
    let spaced = spaced.split_whitespace().collect::<Vec<_>>().join(" ");
    // Case folds first, so "SWIFT" stays "Swift" (the skeleton alone would draw its "I"
    // as "l"); a capital I and a small l are then told apart, as in lower case.
    let prototypes: String = skeleton(&caseless(&spaced)).collect();
    caseless(&prototypes).nfc().collect()
}

/// The compatibility caseless form NFKD(casefold(NFKD(casefold(NFD(text))))) (D146).
fn caseless(text: &str) -> String {
    let nfd: String = text.nfd().collect();
    let once: String = caseless::default_case_fold_str(&nfd).nfkd().collect();
    caseless::default_case_fold_str(&once).nfkd().collect()
}

/// Characters that are drawn as an empty cell although they are neither spaces nor
/// default-ignorable.
const BLANK_GLYPHS: &[char] = &['\u{2800}'];

/// Whether `c` shows nothing where it stands: a default-ignorable code point (the
/// characters the UTS #39 skeleton drops, so a lone one has an empty skeleton) or a
/// blank glyph such as the braille blank U+2800.
pub fn is_invisible(c: char) -> bool {
    let mut buffer = [0; 4];
    BLANK_GLYPHS.contains(&c) || skeleton(c.encode_utf8(&mut buffer)).next().is_none()
}

/// Whether `c` is something a reader sees: a letter, number, punctuation mark or symbol
/// that is not [`is_invisible`].
fn is_visible(c: char) -> bool {
    use GeneralCategory::*;
    let seen = matches!(
        c.general_category(),
        UppercaseLetter
            | LowercaseLetter
            | TitlecaseLetter
            | ModifierLetter
            | OtherLetter
            | DecimalNumber
            | LetterNumber
            | OtherNumber
            | ConnectorPunctuation
            | DashPunctuation
            | OpenPunctuation
            | ClosePunctuation
            | InitialPunctuation
            | FinalPunctuation
            | OtherPunctuation
            | MathSymbol
            | CurrencySymbol
            | ModifierSymbol
            | OtherSymbol
    );
    seen && !is_invisible(c)
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
    /// A character that shows nothing where it stands ([`is_invisible`]).
    Invisible(char),
    /// Nothing a reader can see: only blank or invisible characters, or lone marks.
    Blank,
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
            NameError::Invisible(c) => write!(
                f,
                "A display name cannot contain the character U+{:04X}: it shows nothing, so the name would look like another (variation selectors, joiners, fillers and blank characters are not allowed).",
                u32::from(*c)
            ),
            NameError::Blank => f.write_str(
                "A display name needs at least one visible letter, digit, punctuation mark or symbol.",
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

    #[test]
    fn refuses_characters_that_show_nothing() {
        for (raw, c) in [
            ("Swift Otter\u{fe0f}", '\u{fe0f}'), // variation selector 16
            ("Swi\u{fe00}ft", '\u{fe00}'),       // variation selector 1
            ("Ot\u{e0100}ter", '\u{e0100}'),     // variation selector 17
            ("Swift\u{34f}Otter", '\u{34f}'),    // combining grapheme joiner
            ("Swift\u{3164}Otter", '\u{3164}'),  // Hangul filler
            ("Swift\u{115f}Otter", '\u{115f}'),  // Hangul choseong filler
            ("Swift\u{ffa0}Otter", '\u{ffa0}'),  // halfwidth Hangul filler
            ("Swift\u{2800}Otter", '\u{2800}'),  // braille blank
            ("Swift\u{180b}Otter", '\u{180b}'),  // Mongolian variation selector
            ("Swift\u{17b4}Otter", '\u{17b4}'),  // Khmer inherent vowel
        ] {
            assert_eq!(
                DisplayName::parse(raw),
                Err(NameError::Invisible(c)),
                "{raw:?}"
            );
        }
        // Visible letters of other scripts and emoji stay allowed.
        for raw in ["김민준", "Ωmega", "🦦 Otter", "⠁⠃ braille"] {
            assert!(DisplayName::parse(raw).is_ok(), "{raw:?}");
        }
        let message = DisplayName::parse("a\u{fe0f}").unwrap_err().to_string();
        assert!(message.contains("U+FE0F: it shows nothing"), "{message}");
    }

    #[test]
    fn a_name_must_show_something() {
        for raw in [
            "\u{2800}",
            "\u{2800} \u{2800}",
            "\u{3164}\u{3164}",
            "\u{115f}\u{1160}",
            "\u{34f}",
            "\u{fe0f}\u{fe0f}",
            "\u{301}\u{302}",
        ] {
            assert_eq!(DisplayName::parse(raw), Err(NameError::Blank), "{raw:?}");
        }
        assert_eq!(
            NameError::Blank.to_string(),
            "A display name needs at least one visible letter, digit, punctuation mark or symbol."
        );
    }

    #[test]
    fn names_that_look_alike_have_the_same_key() {
        let key = |raw: &str| DisplayName::parse(raw).unwrap().key();
        // One Cyrillic letter (о U+043E, е U+0435, а U+0430) in a Latin name.
        assert_eq!(key("Swift Otter"), key("Swift \u{41e}tter"));
        assert_eq!(key("Swift Otter"), key("Swift Ott\u{435}r"));
        assert_eq!(key("Calm Dolphin"), key("C\u{430}lm Dolphin"));
        // Greek omicron, digits and letters drawn alike.
        assert_eq!(key("Bold Fox"), key("B\u{3bf}ld Fox"));
        assert_eq!(key("Good"), key("G00d"));
        assert_eq!(key("Bill"), key("Bi1l"));
        assert_eq!(key("SWIFT OTTER"), key("Swift Otter"));
        assert_eq!(key("rn"), key("m"));
        // Different names stay different.
        assert_ne!(key("Swift Otter"), key("Swift Otters"));
        assert_ne!(key("Swift Otter"), key("SwiftOtter"));
        assert_ne!(key("键道"), key("键盘"));
    }

    #[test]
    fn stored_names_from_before_the_rules_get_the_key_of_what_they_show() {
        let key = |raw: &str| DisplayName::parse(raw).unwrap().key();
        assert_eq!(look_alike_key("Swift Otter\u{fe0f}"), key("Swift Otter"));
        assert_eq!(look_alike_key("Swift\u{34f} Otter"), key("Swift Otter"));
        assert_eq!(look_alike_key("Swift\u{2800}Otter"), key("Swift Otter"));
        assert_eq!(look_alike_key("Swift\u{3164} Otter"), key("Swift Otter"));
        assert_eq!(look_alike_key(" Swift  Otter "), key("Swift Otter"));
    }
}
