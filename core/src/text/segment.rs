//! 段: a text longer than its cap split into pieces a game each (docs/genda.md, "Caps
//! and 段").
//!
//! A split falls at a sentence end: after `。！？!?…`, or after `.` in an English text,
//! with any closing quotes or brackets that follow (`他说：“好。”` ends after `”`). In
//! English a sentence ends only where a space follows, and that space is dropped, so
//! `3.14` and `e.g.` inside a word stay whole. The 段 are about equal: each ends at
//! the sentence end nearest an equal share of what is left. Only a sentence longer
//! than the cap is cut inside: an English one at its last space within the cap, else
//! between two grapheme clusters.

use crate::game::mode::Language;
use crate::text::cap;
use unicode_segmentation::UnicodeSegmentation;

/// Characters that end a sentence in either language.
const SENTENCE_ENDS: &[char] = &['。', '！', '？', '!', '?', '…'];

/// Characters that close a quotation or a bracket after a sentence end.
const CLOSERS: &[char] = &['”', '’', '」', '』', '》', '）', ')', '"', '\''];

/// `text` (normalised, in `language`) as 段 of at most [`cap`]`(language)` characters
/// each, in order; one 段 when it is within the cap, none when it is empty.
///
/// Put back together (in English with one space between 段 split at a space) they
/// are `text` again.
pub fn split(text: &str, language: Language) -> Vec<String> {
    split_at_most(text, language, cap(language))
}

/// [`split`] with any cap of at least one character.
fn split_at_most(text: &str, language: Language, cap: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let ends = sentence_ends(&chars, language);
    let mut pieces = Vec::new();
    let mut start = 0;
    while start < chars.len() {
        let remaining = chars.len() - start;
        if remaining <= cap {
            pieces.push(chars[start..].iter().collect());
            break;
        }
        let (end, next) = best_end(&ends, start, remaining, cap)
            .unwrap_or_else(|| cut_inside(&chars, start, language, cap));
        pieces.push(chars[start..end].iter().collect());
        start = next;
    }
    pieces
}

/// Every sentence end as (where a 段 ending there ends, where the next one starts), in
/// character indices.
fn sentence_ends(chars: &[char], language: Language) -> Vec<(usize, usize)> {
    let is_end =
        |c: char| SENTENCE_ENDS.contains(&c) || (c == '.' && language == Language::English);
    let mut ends = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !is_end(chars[i]) {
            i += 1;
            continue;
        }
        while i < chars.len() && is_end(chars[i]) {
            i += 1;
        }
        while i < chars.len() && CLOSERS.contains(&chars[i]) {
            i += 1;
        }
        match language {
            Language::Chinese => ends.push((i, i)),
            Language::English if chars.get(i) == Some(&' ') => ends.push((i, i + 1)),
            Language::English => {}
        }
    }
    ends
}

/// The sentence end within `cap` of `start` nearest an equal share of the `remaining`
/// characters (the longer on a tie), if there is one.
fn best_end(
    ends: &[(usize, usize)],
    start: usize,
    remaining: usize,
    cap: usize,
) -> Option<(usize, usize)> {
    let pieces_left = remaining.div_ceil(cap);
    let share = remaining.div_ceil(pieces_left);
    ends.iter()
        .copied()
        .filter(|&(end, _)| end > start && end - start <= cap)
        .min_by_key(|&(end, _)| ((end - start).abs_diff(share), usize::MAX - end))
}

/// Where to cut a sentence longer than `cap` that begins at `start`.
fn cut_inside(chars: &[char], start: usize, language: Language, cap: usize) -> (usize, usize) {
    if language == Language::English {
        let last_space = (start + 1..=start + cap)
            .rev()
            .find(|&i| chars.get(i) == Some(&' '));
        if let Some(space) = last_space {
            return (space, space + 1);
        }
    }
    // Whole grapheme clusters, so no 字 loses its marks; a single cluster over the cap
    // (thousands of marks on one letter) is cut anyway.
    let window: String = chars[start..start + cap + 1].iter().collect();
    let mut taken = 0;
    for grapheme in window.graphemes(true) {
        let len = grapheme.chars().count();
        if taken + len > cap {
            break;
        }
        taken += len;
    }
    let end = start + if taken == 0 { cap } else { taken };
    (end, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalise::normalise;
    use crate::text::{LoadedText, MAX_EN_CHARS, MAX_ZH_CHARS};
    use proptest::prelude::*;

    fn lens(pieces: &[String]) -> Vec<usize> {
        pieces.iter().map(|p| p.chars().count()).collect()
    }

    #[test]
    fn within_the_cap_is_one_piece() {
        assert_eq!(split("学而时习之。", Language::Chinese), ["学而时习之。"]);
        let at_cap = "字".repeat(MAX_ZH_CHARS);
        assert_eq!(split(&at_cap, Language::Chinese), vec![at_cap]);
        let en_at_cap = "a".repeat(MAX_EN_CHARS);
        assert_eq!(split(&en_at_cap, Language::English), vec![en_at_cap]);
        assert!(split("", Language::Chinese).is_empty());
    }

    #[test]
    fn splits_at_sentence_ends_with_their_closing_quotes() {
        let text = "他说：“好。”我们走吧！真的？走…";
        assert_eq!(
            split_at_most(text, Language::Chinese, 8),
            ["他说：“好。”", "我们走吧！", "真的？走…"]
        );
        let en = "He said \"Go.\" So we went! Did we? Yes... 3.14 is pi.";
        assert_eq!(
            split_at_most(en, Language::English, 20),
            [
                "He said \"Go.\"",
                "So we went! Did we?",
                "Yes... 3.14 is pi."
            ]
        );
    }

    #[test]
    fn one_over_the_cap_splits_in_two_about_equal() {
        // Ten sentences of ten 字: 100 字 over a cap of 99.
        let sentence = "一二三四五六七八九。";
        let text = sentence.repeat(10);
        let pieces = split_at_most(&text, Language::Chinese, 99);
        assert_eq!(lens(&pieces), [50, 50]);
        assert_eq!(pieces.concat(), text);
        // Just at the cap: one piece.
        assert_eq!(split_at_most(&text, Language::Chinese, 100), vec![text]);
    }

    #[test]
    fn only_a_sentence_over_the_cap_is_cut_inside() {
        let long = "长".repeat(25);
        let text = format!("短句。{long}。尾。");
        let pieces = split_at_most(&text, Language::Chinese, 10);
        assert_eq!(pieces.concat(), text);
        assert!(lens(&pieces).iter().all(|&n| n <= 10), "{pieces:?}");
        assert_eq!(pieces[0], "短句。");
        // English is cut at its last space within the cap.
        let en = "one two three four five six seven.";
        assert_eq!(
            split_at_most(en, Language::English, 14),
            ["one two three", "four five six", "seven."]
        );
        // Accents stay on their letters.
        let accented = "e\u{0301}".repeat(6);
        let pieces = split_at_most(&accented, Language::English, 5);
        assert!(
            pieces.iter().all(|p| !p.starts_with('\u{0301}')),
            "{pieces:?}"
        );
        assert_eq!(pieces.concat(), accented);
    }

    #[test]
    fn a_ten_thousand_zi_text_gives_four_loadable_pieces() {
        // Sentences of 7 to 60 字, each ended by 。, ！ or ？.
        let mut text = String::new();
        let mut n = 0_usize;
        while text.chars().count() < 10_000 {
            let len = 7 + (n * 37) % 54;
            text.push_str(&"文".repeat(len - 1));
            text.push(['。', '！', '？'][n % 3]);
            n += 1;
        }
        let text: String = text.chars().take(10_000).collect();
        let pieces = split(&text, Language::Chinese);
        assert_eq!(pieces.len(), 4);
        assert_eq!(pieces.concat(), text);
        for piece in &pieces[..3] {
            assert!(piece.ends_with(['。', '！', '？']), "{piece}");
            assert!((2_300..=2_700).contains(&piece.chars().count()));
        }
        for piece in &pieces {
            let loaded = LoadedText::new(piece).unwrap();
            assert_eq!(loaded.as_str(), piece);
        }
    }

    proptest! {
        #[test]
        fn pieces_are_within_the_cap_and_make_the_text(
            sentences in prop::collection::vec(
                (prop::sample::select(vec!["字", "ab", "é", "c d", "1.5"]), 1..30_usize,
                 prop::sample::select(vec!["。", "！", "？”", ".", "!", "", "…"])),
                1..20),
            cap in 1..40_usize,
            english in any::<bool>(),
        ) {
            let language = if english { Language::English } else { Language::Chinese };
            let raw: String = sentences
                .iter()
                .map(|(word, times, end)| format!("{}{end} ", word.repeat(*times)))
                .collect();
            let text = match language {
                Language::English => raw.split_whitespace().collect::<Vec<_>>().join(" "),
                Language::Chinese => raw.replace(' ', ""),
            };
            let pieces = split_at_most(&text, language, cap);
            prop_assert!(pieces.iter().all(|p| !p.is_empty() && p.chars().count() <= cap));
            prop_assert!(pieces.iter().all(|p| p.trim() == p));
            let together: String = pieces.concat();
            prop_assert_eq!(together.replace(' ', ""), text.replace(' ', ""));
            if text.chars().count() <= cap {
                prop_assert_eq!(pieces, vec![text]);
            }
        }

        #[test]
        fn chinese_pieces_stay_normalised(raw in "[字文，。！？”a-c ]{0,200}") {
            let text = normalise(&raw);
            prop_assume!(crate::text::normalise::language_of(&text) == Language::Chinese);
            for piece in split_at_most(&text, Language::Chinese, 17) {
                prop_assert_eq!(normalise(&piece), piece);
            }
        }
    }
}
