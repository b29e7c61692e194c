//! The 成绩 line: a finished game as 跟打 players paste it back into their group, and
//! the short verification code it carries (docs/scoring.md, "The 成绩 line").
//!
//! ```text
//! 第3段 速度:60.00 击键:4.60 码长:2.30 字数:10 错字:1 用时:0:05.00 键准:86.96% 回改:1 退格:1 打词:70.00% 选重:— 输入法:小鹤双拼 KeyDo 验证:待验证
//! ```
//!
//! Every figure comes from the game's [`Report`]; what browser events cannot show is
//! printed as `—`, never guessed.

use crate::game::mode::{Language, value_digits};
use crate::game::report::Report;
use crate::game::score;

/// What a figure the browser cannot measure reads.
pub const NOT_MEASURABLE: &str = "—";

/// What `验证` reads until the server has verified the result.
pub const UNVERIFIED: &str = "待验证";

/// The characters of a verification code: digits and capitals without 0, 1, I and O,
/// which read alike.
pub const CODE_ALPHABET: &[u8; 32] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";

/// How many characters a verification code has: 30 bits.
pub const CODE_LEN: usize = 6;

/// The 成绩 line of the game `report` describes: `segment` is its 段 number, if the text
/// came with one; `input_method` the name the player gave, if any; `verification` the
/// code the server gave the result once it verified it ([`is_code`]).
pub fn result_line(
    report: &Report,
    segment: Option<u32>,
    input_method: Option<&str>,
    verification: Option<&str>,
) -> String {
    let stats = &report.stats;
    let figures = &report.figures;
    let mut fields = Vec::with_capacity(16);
    if let Some(segment) = segment {
        fields.push(format!("第{segment}段"));
    }
    let unit = match report.mode.language() {
        Language::Chinese => "",
        Language::English => "WPM",
    };
    // The leaderboard value's exact digits, so the line and the board never differ.
    let value = score::value(report.mode, stats);
    fields.push(format!("速度:{}{unit}", value_digits(value)));
    fields.push(format!("击键:{:.2}", figures.keys_per_second));
    fields.push(format!(
        "码长:{}",
        figures
            .keys_per_char
            .map_or(NOT_MEASURABLE.to_owned(), |keys| format!("{keys:.2}"))
    ));
    fields.push(format!("字数:{}", stats.correct_chars + stats.errors));
    fields.push(format!("错字:{}", stats.errors));
    fields.push(format!("用时:{}", minutes_seconds(stats.duration_ms)));
    fields.push(format!("键准:{}", percent(report.key_accuracy)));
    fields.push(format!("回改:{}", report.corrections.len()));
    fields.push(format!("退格:{}", figures.corrections));
    fields.push(format!(
        "打词:{}",
        report
            .phrase_share
            .map_or(NOT_MEASURABLE.to_owned(), percent)
    ));
    // Which candidate an IME commit was is not in any browser event.
    fields.push(format!("选重:{NOT_MEASURABLE}"));
    // Spaces separate the fields, so a name keeps none.
    let input_method: Option<String> =
        input_method.map(|name| name.chars().filter(|c| !c.is_whitespace()).collect());
    if let Some(name) = input_method.filter(|name| !name.is_empty()) {
        fields.push(format!("输入法:{name}"));
    }
    fields.push("KeyDo".to_owned());
    fields.push(format!("验证:{}", verification.unwrap_or(UNVERIFIED)));
    fields.join(" ")
}

/// `m:ss.cc`, rounded to the hundredth of a second.
fn minutes_seconds(ms: u64) -> String {
    let centis = (ms + 5) / 10;
    format!(
        "{}:{:02}.{:02}",
        centis / 6_000,
        centis % 6_000 / 100,
        centis % 100
    )
}

fn percent(share: f64) -> String {
    format!("{:.2}%", share * 100.0)
}

/// Whether `code` is spelled as a verification code: [`CODE_LEN`] characters of
/// [`CODE_ALPHABET`]. The server draws each result's code at random and keeps them
/// unique (docs/api.md, "Results").
pub fn is_code(code: &str) -> bool {
    code.len() == CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::mode::Mode;
    use crate::game::prompt::Prompt;
    use crate::game::report::report;
    use crate::game::typing::{Edit, Session};

    /// A composition of `keys` keys from `start` committing `text` at `end`.
    fn compose(session: &mut Session, start: u64, end: u64, keys: usize, text: &str) {
        session.apply(Edit::CompositionStart, start);
        for key in 1..=keys {
            session.apply(Edit::CompositionUpdate("x".repeat(key)), start);
        }
        session.apply(Edit::CompositionEnd(text.into()), end);
    }

    fn report_of(mode: Mode, prompt: &Prompt, session: &Session) -> Report {
        report(mode, prompt, &session.input_log()).unwrap()
    }

    /// A recorded 中文 game: 10 字 in 5 s, one wrong 字 fixed (西 for 习), one left
    /// wrong (呼 for 乎), punctuation typed directly.
    #[test]
    fn a_recorded_zh_game_gives_its_line() {
        let prompt = Prompt::new("学而时习之，不亦说乎").unwrap();
        let mut s = Session::new(Mode::Zh, &prompt);
        compose(&mut s, 0, 800, 4, "学而");
        compose(&mut s, 1_000, 1_500, 3, "时");
        compose(&mut s, 1_600, 2_000, 2, "西");
        s.apply(Edit::Backspace, 2_200);
        compose(&mut s, 2_400, 3_000, 4, "习之");
        s.apply(Edit::Commit("，".into()), 3_200);
        compose(&mut s, 3_500, 4_500, 6, "不亦说");
        compose(&mut s, 4_700, 5_000, 2, "呼");
        let r = report_of(Mode::Zh, &prompt, &s);
        // 速度 (10 − 5 × 1) 字 in 5 s = 60; 23 keys in 5 s = 4.6 per second, 2.3 per 字;
        // 键准 20 of 23 keys (西's 2 and the Backspace are gone); 打词 学而, 习之,
        // 不亦说: 7 of 10.
        assert_eq!(
            result_line(&r, Some(3), Some("小鹤双拼"), None),
            "第3段 速度:60.00 击键:4.60 码长:2.30 字数:10 错字:1 用时:0:05.00 键准:86.96% \
             回改:1 退格:1 打词:70.00% 选重:— 输入法:小鹤双拼 KeyDo 验证:待验证"
        );
    }

    #[test]
    fn a_recorded_english_game_gives_its_line_in_wpm() {
        let prompt = Prompt::new("the cat sat").unwrap();
        let mut s = Session::new(Mode::Quote, &prompt);
        let keys = [
            "t", "h", "e", " ", "c", "a", "x", "", "t", " ", "s", "a", "t",
        ];
        for (i, key) in keys.into_iter().enumerate() {
            let at = i as u64 * 250;
            match key {
                "" => s.apply(Edit::Backspace, at),
                key => s.apply(Edit::Commit(key.into()), at),
            }
        }
        let r = report_of(Mode::Quote, &prompt, &s);
        let code = "K7Q2ZM";
        // 11 characters in 3 s: 44 WPM; 13 keys: 4.33 per second, 1.18 per character;
        // 键准 11 of 13.
        assert_eq!(
            result_line(&r, None, Some("  "), Some(code)),
            format!(
                "速度:44.00WPM 击键:4.33 码长:1.18 字数:11 错字:0 用时:0:03.00 键准:84.62% \
                 回改:1 退格:1 打词:— 选重:— KeyDo 验证:{code}"
            )
        );
    }

    #[test]
    fn times_read_as_minutes_and_hundredths() {
        assert_eq!(minutes_seconds(0), "0:00.00");
        assert_eq!(minutes_seconds(5_004), "0:05.00");
        assert_eq!(minutes_seconds(5_005), "0:05.01");
        assert_eq!(minutes_seconds(59_995), "1:00.00");
        assert_eq!(minutes_seconds(83_450), "1:23.45");
        assert_eq!(minutes_seconds(3_600_000), "60:00.00");
    }

    #[test]
    fn input_method_names_keep_no_spaces() {
        let prompt = Prompt::new("ab").unwrap();
        let mut s = Session::new(Mode::Words, &prompt);
        s.apply(Edit::Commit("ab".into()), 0);
        let r = report_of(Mode::Words, &prompt, &s);
        let line = result_line(&r, Some(1), Some(" 小鹤 音形 "), Some("ABC234"));
        assert!(line.starts_with("第1段 速度:0.00WPM "), "{line}");
        assert!(
            line.ends_with(" 输入法:小鹤音形 KeyDo 验证:ABC234"),
            "{line}"
        );
        // No time passed: no speed, yet every figure is printed.
        assert_eq!(line.split(' ').count(), 15);
    }

    #[test]
    fn codes_are_six_unambiguous_characters() {
        assert!(is_code("2HVCVM"));
        for wrong in [
            "2HVCV",
            "2HVCVMM",
            "2HVCV0",
            "2hvcvm",
            "2HVCVI",
            "验证码验证码",
        ] {
            assert!(!is_code(wrong), "{wrong}");
        }
    }
}
