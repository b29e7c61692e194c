//! A text pasted from a QQ group's 发文 (docs/genda.md, "QQ messages").
//!
//! A 发文 tool posts a title line, the body, and a last line naming the 段:
//!
//! ```text
//! 背影
//! 我与父亲不相见已二年余了，我最不能忘记的是他的背影。
//! -----第12段-余345字-极速跟打器
//! ```
//!
//! The last line is recognised when, ignoring the separators before it (`-`, `－`,
//! `—`, `=`, `_`, `~`, `*`, `#`, `·` and spaces), it begins with `第`, digits (ASCII or
//! full-width) and `段`, and `段` ends the line or is followed by something other than
//! a letter or digit (a separator, `共1000字`, a tool's name after a space). So a
//! sentence such as `第3段路程很长。` is body, not a 段 line.

/// A pasted message, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pasted {
    /// The first line, when the message has the 发文 shape and a body besides.
    pub title: Option<String>,
    /// The text to type, not yet normalised: the lines between the title and the 段
    /// line, or the whole paste when it is not a 发文 message.
    pub body: String,
    /// The 段号 of the 段 line.
    pub segment: Option<u32>,
}

/// Separators a 发文 tool draws before and inside its 段 line.
const SEPARATORS: &[char] = &[
    '-', '－', '—', '–', '=', '＝', '_', '~', '～', '*', '#', '·',
];

/// `raw` taken apart: title, body and 段号 when its last non-blank line is a 段 line,
/// else all body.
pub fn parse_message(raw: &str) -> Pasted {
    // Any line ending: `\n`, Windows' `\r\n`, or a lone `\r`.
    let lines: Vec<&str> = raw
        .split(['\r', '\n'])
        .filter(|line| !line.trim().is_empty())
        .collect();
    let recognised = lines
        .split_last()
        .and_then(|(last, rest)| Some((segment_number(last)?, rest)));
    match recognised {
        Some((segment, [title, body @ ..])) if !body.is_empty() => Pasted {
            title: Some(title.trim().to_owned()),
            body: body.join("\n"),
            segment: Some(segment),
        },
        Some((segment, body)) if !body.is_empty() => Pasted {
            title: None,
            body: body.join("\n"),
            segment: Some(segment),
        },
        _ => Pasted {
            title: None,
            body: raw.trim().to_owned(),
            segment: None,
        },
    }
}

/// The N of a `第N段` line.
fn segment_number(line: &str) -> Option<u32> {
    let rest = line
        .trim_start_matches(|c: char| c.is_whitespace() || SEPARATORS.contains(&c))
        .strip_prefix('第')?;
    let digits_end = rest
        .find(|c: char| ascii_digit(c).is_none())
        .unwrap_or(rest.len());
    let (digits, after) = rest.split_at(digits_end);
    let after = after.strip_prefix('段')?;
    if after.chars().next().is_some_and(char::is_alphanumeric) || digits.is_empty() {
        return None;
    }
    digits.chars().try_fold(0_u32, |n, c| {
        n.checked_mul(10)?.checked_add(ascii_digit(c)?)
    })
}

/// The value of an ASCII or full-width digit.
fn ascii_digit(c: char) -> Option<u32> {
    match c {
        '0'..='9' => c.to_digit(10),
        '０'..='９' => Some(c as u32 - '０' as u32),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pasted(title: Option<&str>, body: &str, segment: Option<u32>) -> Pasted {
        Pasted {
            title: title.map(str::to_owned),
            body: body.to_owned(),
            segment,
        }
    }

    #[test]
    fn reads_the_usual_fawen_shape() {
        let message = "背影\n我与父亲不相见已二年余了，\n我最不能忘记的是他的背影。\n-----第12段-余345字-极速跟打器";
        assert_eq!(
            parse_message(message),
            pasted(
                Some("背影"),
                "我与父亲不相见已二年余了，\n我最不能忘记的是他的背影。",
                Some(12)
            )
        );
    }

    #[test]
    fn reads_the_variants_of_the_last_line() {
        let cases = [
            ("--第3段--共1000字", 3),
            ("第7段", 7),
            ("第7段 木易跟打器发文", 7),
            ("－－－－－第１２段－余３４５字", 12),
            ("=====第105段=共200段=本段500字=", 105),
            ("———第1段·共3段 添雨跟打器 v3", 1),
            ("  ~~第04段~~  ", 4),
            ("第2段(共5段)", 2),
        ];
        for (last_line, segment) in cases {
            let message = format!("《荷塘月色》朱自清\r\n这几天心里颇不宁静。\r\n{last_line}\r\n");
            assert_eq!(
                parse_message(&message),
                pasted(
                    Some("《荷塘月色》朱自清"),
                    "这几天心里颇不宁静。",
                    Some(segment)
                ),
                "{last_line}"
            );
        }
    }

    #[test]
    fn blank_lines_and_windows_line_endings_are_ignored() {
        let message = "\r\n 春 \r\n\r\n盼望着，盼望着，东风来了。\r\n\r\n春天的脚步近了。\r\n\r\n-----第1段-余99字\r\n\r\n";
        assert_eq!(
            parse_message(message),
            pasted(
                Some("春"),
                "盼望着，盼望着，东风来了。\n春天的脚步近了。",
                Some(1)
            )
        );
    }

    #[test]
    fn any_line_ending_separates_lines() {
        for ending in ["\n", "\r\n", "\r"] {
            let message = ["题", "正文一", "正文二", "--第5段--"].join(ending);
            assert_eq!(
                parse_message(&message),
                pasted(Some("题"), "正文一\n正文二", Some(5)),
                "{ending:?}"
            );
        }
    }

    #[test]
    fn a_segment_line_with_one_line_before_it_has_no_title() {
        assert_eq!(
            parse_message("天下大势，分久必合，合久必分。\n-----第2段-余10字"),
            pasted(None, "天下大势，分久必合，合久必分。", Some(2))
        );
    }

    #[test]
    fn a_plain_text_is_all_body() {
        let cases = [
            "学而时习之，不亦说乎？\n有朋自远方来，不亦乐乎？",
            // A sentence that begins like a 段 line.
            "标题\n正文。\n第3段路程很长，我们走了很久。",
            "标题\n正文。\n第3段2",
            // No number, or one too large.
            "标题\n正文。\n-----第段-余3字",
            "标题\n正文。\n-----第99999999999段",
            // The 段 line alone.
            "-----第1段-余3字",
            "  It was the best of times.  ",
        ];
        for text in cases {
            assert_eq!(
                parse_message(text),
                pasted(None, text.trim(), None),
                "{text}"
            );
        }
        assert_eq!(parse_message(""), pasted(None, "", None));
    }
}
