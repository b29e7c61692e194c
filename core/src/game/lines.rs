//! Where a prompt breaks into lines on screen, given how many characters fit on one:
//! the app draws only the few lines around the caret, so it must know the lines
//! without having the browser lay out the whole prompt.
//!
//! English prompts are set in a monospace font, so every character takes one column;
//! a line breaks after a space, or inside a word too long for a whole line. Chinese
//! passages are all full-width (the corpus test allows IME punctuation only), so every
//! 字 and mark takes one column too; a line breaks between any two characters, except
//! that it never starts with closing punctuation nor ends with opening punctuation
//! (避头尾). No line is ever longer than the columns given, so none overflows.

use crate::game::mode::Language;

/// Marks a Chinese line may not start with.
const NO_LINE_START: &[char] = &[
    '，', '。', '、', '；', '：', '？', '！', '）', '》', '」', '』', '”', '’', '…',
];
/// Marks a Chinese line may not end with.
const NO_LINE_END: &[char] = &['（', '《', '「', '『', '“', '‘'];

/// The index of each line's first character: `[0, ...]`, strictly increasing, one
/// entry per line (an empty text is one empty line). `columns` below 1 counts as 1.
pub fn line_starts(text: &[char], columns: usize, language: Language) -> Vec<usize> {
    let columns = columns.max(1);
    let mut starts = vec![0];
    let mut start = 0;
    while text.len() - start > columns {
        let limit = start + columns;
        let next = match language {
            Language::English => text[start..limit]
                .iter()
                .rposition(|&c| c == ' ')
                .map_or(limit, |space| start + space + 1),
            Language::Chinese => {
                let mut next = limit;
                while next > start + 1
                    && (NO_LINE_START.contains(&text[next])
                        || NO_LINE_END.contains(&text[next - 1]))
                {
                    next -= 1;
                }
                next
            }
        };
        starts.push(next);
        start = next;
    }
    starts
}

/// The line `index` falls on, given [`line_starts`]. An index past the end (the caret
/// after the last character) is on the last line.
pub fn line_of(starts: &[usize], index: usize) -> usize {
    starts
        .partition_point(|&start| start <= index)
        .saturating_sub(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn lines(text: &str, columns: usize, language: Language) -> Vec<String> {
        let chars: Vec<char> = text.chars().collect();
        let starts = line_starts(&chars, columns, language);
        let ends = starts.iter().skip(1).copied().chain([chars.len()]);
        starts
            .iter()
            .zip(ends)
            .map(|(&s, e)| chars[s..e].iter().collect())
            .collect()
    }

    #[test]
    fn english_breaks_after_spaces() {
        assert_eq!(
            lines("the cat sat on the mat", 10, Language::English),
            ["the cat ", "sat on ", "the mat"]
        );
        // A space fits only within the columns; with no earlier space to break at,
        // the line is cut where it is full.
        assert_eq!(lines("abcd efgh", 5, Language::English), ["abcd ", "efgh"]);
        assert_eq!(
            lines("abcd efgh", 4, Language::English),
            ["abcd", " ", "efgh"]
        );
        assert_eq!(lines("short", 80, Language::English), ["short"]);
    }

    #[test]
    fn a_word_longer_than_a_line_is_cut() {
        assert_eq!(
            lines("a incomprehensibilities b", 8, Language::English),
            ["a ", "incompre", "hensibil", "ities b"]
        );
    }

    #[test]
    fn chinese_keeps_punctuation_off_the_wrong_ends() {
        assert_eq!(
            lines("学而时习之不亦说乎", 4, Language::Chinese),
            ["学而时习", "之不亦说", "乎"]
        );
        // "，" would start the second line: "之" goes down with it.
        assert_eq!(
            lines("学而时习之，不亦说乎", 5, Language::Chinese),
            ["学而时习", "之，不亦说", "乎"]
        );
        // "“" would end the first line: it goes down to its quotation.
        assert_eq!(
            lines("子曰：“学而时习之”", 4, Language::Chinese),
            ["子曰：", "“学而时", "习之”"]
        );
    }

    #[test]
    fn lines_of_an_index() {
        let starts = [0, 8, 15];
        assert_eq!(line_of(&starts, 0), 0);
        assert_eq!(line_of(&starts, 7), 0);
        assert_eq!(line_of(&starts, 8), 1);
        assert_eq!(line_of(&starts, 15), 2);
        assert_eq!(line_of(&starts, 99), 2);
        assert_eq!(line_starts(&[], 10, Language::English), [0]);
        assert_eq!(line_of(&[0], 0), 0);
    }

    proptest! {
        #[test]
        fn lines_cover_the_text_and_none_overflows(
            text in "[ab 学，“]{0,60}",
            columns in 0..12usize,
            chinese in any::<bool>(),
        ) {
            let chars: Vec<char> = text.chars().collect();
            let language = if chinese { Language::Chinese } else { Language::English };
            let starts = line_starts(&chars, columns, language);
            prop_assert_eq!(starts[0], 0);
            let ends: Vec<usize> = starts.iter().skip(1).copied().chain([chars.len()]).collect();
            for (&start, &end) in starts.iter().zip(&ends) {
                prop_assert!(start < end || chars.is_empty());
                prop_assert!(end - start <= columns.max(1));
            }
            for (index, _) in chars.iter().enumerate() {
                let line = line_of(&starts, index);
                prop_assert!(starts[line] <= index && index < ends[line]);
            }
        }
    }
}
