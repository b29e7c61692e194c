//! The one normalisation of a loaded text (docs/genda.md, "Normalisation"): the page runs
//! it before a game and the server refuses a text it would change, so both type and
//! hash the same characters.
//!
//! In order:
//! 1. invisible characters are dropped ([`is_dropped`]) and `⋯` becomes `…`;
//! 2. NFC;
//! 3. whitespace: in a Chinese text ([`language_of`]) every whitespace character is
//!    removed; in any other, each run becomes one ASCII space, none at either end;
//! 4. NFC again, because removing a space can put a combining mark next to the
//!    character before it.
//!
//! Whitespace is Unicode's `White_Space` (`char::is_whitespace`), the same as
//! `str::split_whitespace`, so a normalised text is also a [`crate::Prompt`] unchanged.
//!
//! Idempotent: a Chinese result has no whitespace, which every later step leaves alone
//! whatever language it is read as; an English result keeps its non-whitespace
//! characters and word breaks, which is all [`language_of`] reads.

use crate::game::mode::Language;
use unicode_normalization::UnicodeNormalization;

/// `raw` as it is typed, hashed and stored.
pub fn normalise(raw: &str) -> String {
    let visible: String = raw
        .chars()
        .filter(|&c| !is_dropped(c))
        .map(|c| if c == '⋯' { '…' } else { c })
        .collect();
    let composed: String = visible.nfc().collect();
    let spaced = match language_of(&composed) {
        Language::Chinese => composed.chars().filter(|c| !c.is_whitespace()).collect(),
        Language::English => composed.split_whitespace().collect::<Vec<_>>().join(" "),
    };
    spaced.nfc().collect()
}

/// Whether `c` is dropped from a loaded text: characters that show nothing and that no
/// keyboard types.
///
/// * zero-width spaces and joiners, the word joiner and the byte order mark:
///   U+200B–U+200D, U+2060, U+FEFF;
/// * also the other invisible format characters a copied web page or chat carries: the
///   soft hyphen U+00AD, the Mongolian vowel separator U+180E, the direction marks
///   U+200E–U+200F, the bidirectional embeddings and isolates U+202A–U+202E and
///   U+2066–U+2069, and the invisible operators U+2061–U+2064;
/// * control characters other than whitespace (a tab or a line break is whitespace,
///   handled with the other whitespace).
///
/// Variation selectors stay: they choose how a 字 or an emoji is drawn, and the text
/// is hashed as it was written.
pub fn is_dropped(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    ) || (c.is_control() && !c.is_whitespace())
}

/// The language a text is typed in: Chinese when its Han characters are at least as
/// many as its words in other scripts, and there is at least one; English otherwise.
///
/// A word is a run of letters (`char::is_alphabetic`) that are not Han, so `使用Rust编写`
/// (four Han, one word) is Chinese and `The word 你好 means hello` (two Han, four words)
/// is English; digits, punctuation and whitespace count for neither. Kana and Hangul
/// are letters of other scripts: Korean, which spaces its words, reads as English and
/// keeps its spaces; Japanese, which does not, mostly reads as Chinese and loses none.
pub fn language_of(text: &str) -> Language {
    let mut han = 0_usize;
    let mut words = 0_usize;
    let mut in_word = false;
    for c in text.chars() {
        if is_han(c) {
            han += 1;
            in_word = false;
        } else if c.is_alphabetic() {
            if !in_word {
                words += 1;
            }
            in_word = true;
        } else {
            in_word = false;
        }
    }
    if han > 0 && han >= words {
        Language::Chinese
    } else {
        Language::English
    }
}

/// Whether `c` is a Han character (汉字): the CJK Unified Ideographs and their
/// extensions, the compatibility ideographs, and `〇`.
pub fn is_han(c: char) -> bool {
    matches!(
        c,
        '\u{3007}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{F900}'..='\u{FAFF}'
            | '\u{20000}'..='\u{2FA1F}'
            | '\u{30000}'..='\u{323AF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn chinese_loses_every_whitespace_and_invisible_character() {
        assert_eq!(
            normalise("\u{FEFF}学而时习之，\r\n  不亦说乎？\u{200B}有朋\u{3000}自远方来⋯⋯\t"),
            "学而时习之，不亦说乎？有朋自远方来……"
        );
        // English words inside a Chinese text run together, as 跟打 texts type them.
        assert_eq!(normalise("我用 Rust 写 一个 程序"), "我用Rust写一个程序");
    }

    #[test]
    fn english_collapses_whitespace_and_trims() {
        assert_eq!(
            normalise("  It was\tthe best\r\n\r\nof\u{00A0}times\u{200D}.\u{2060} "),
            "It was the best of times."
        );
        assert_eq!(normalise("Wait⋯ what?"), "Wait… what?");
        assert_eq!(normalise("co\u{00AD}operate \u{0007}now"), "cooperate now");
    }

    #[test]
    fn composes_to_nfc_even_across_removed_characters() {
        // Decomposed é, with a zero-width space between its letter and its accent.
        assert_eq!(normalise("Cafe\u{0301} caf\u{200B}e\u{0301}"), "Café café");
        // A space removed from Chinese text brings an accent to its letter.
        assert_eq!(normalise("中文中文 e \u{0301}"), "中文中文é");
        // A compatibility ideograph becomes its unified one.
        assert_eq!(normalise("\u{F900}"), "\u{8C48}");
    }

    #[test]
    fn nothing_visible_normalises_to_empty() {
        for blank in [
            "",
            " \r\n\t",
            "\u{200B}\u{FEFF}\u{3000}",
            "\u{2066}\u{2069}",
        ] {
            assert_eq!(normalise(blank), "", "{blank:?}");
        }
    }

    #[test]
    fn chinese_when_han_are_at_least_as_many_as_other_words() {
        let cases = [
            ("学而时习之", Language::Chinese),
            ("使用Rust编写的WebAssembly程序", Language::Chinese),
            ("The word 你好 means hello", Language::English),
            ("Hello, world!", Language::English),
            ("一 two", Language::Chinese),
            ("一 two three", Language::English),
            ("123，。！", Language::English),
            ("", Language::English),
            ("우리는 한국어를 씁니다", Language::English),
            ("私は日本語を話します", Language::Chinese),
        ];
        for (text, language) in cases {
            assert_eq!(language_of(text), language, "{text}");
        }
    }

    /// Strings built from the characters normalisation cares about.
    fn tricky_text() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "学", "而", "時", "\u{F900}", "a", "e", "Z", "é", "\u{0301}", "\u{0338}", "=",
            "\u{1100}", "\u{1161}", "가", " ", "  ", "\t", "\r\n", "\u{3000}", "\u{00A0}",
            "\u{2000}", "\u{200B}", "\u{200D}", "\u{FEFF}", "\u{2060}", "\u{00AD}", "\u{0007}",
            "⋯", "…", "。", "，", ".", "!", "“", "”", "1",
        ]);
        prop::collection::vec(pieces, 0..40).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #[test]
        fn is_idempotent_on_tricky_text(raw in tricky_text()) {
            let once = normalise(&raw);
            prop_assert_eq!(normalise(&once), once.clone());
            // What the game types is the normalised text itself.
            if !once.is_empty() {
                let prompt = crate::Prompt::new(&once).unwrap();
                prop_assert_eq!(prompt.as_str(), once.as_str());
            }
        }

        #[test]
        fn is_idempotent_on_any_string(raw in any::<String>()) {
            let once = normalise(&raw);
            prop_assert_eq!(normalise(&once), once);
        }

        #[test]
        fn leaves_no_invisible_or_doubled_whitespace(raw in tricky_text()) {
            let text = normalise(&raw);
            prop_assert!(!text.chars().any(is_dropped));
            prop_assert!(!text.contains('⋯'));
            match language_of(&text) {
                Language::Chinese => {
                    // Read as Chinese, the text had every space removed.
                    prop_assert!(!text.chars().any(char::is_whitespace));
                }
                Language::English => {
                    prop_assert!(!text.contains("  "));
                    prop_assert_eq!(text.trim(), text.as_str());
                    prop_assert!(text.chars().all(|c| c == ' ' || !c.is_whitespace()));
                }
            }
        }
    }
}
