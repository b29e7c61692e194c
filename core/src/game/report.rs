//! 跟打报告: what a finished game's input log says about each 字 or word, computed by
//! one pure function, [`report`], from the prompt and the log (docs/scoring.md, "The
//! report").
//!
//! The log is replayed through a fresh [`Session`], exactly as the server replays it
//! (`crate::verify::replay`), and every edit is followed as it lands: which edit wrote
//! each character that is still there at the end, which characters were deleted, how
//! many keys each edit took. From that come the time each unit took, the 回改 spots,
//! the per-second timeline and the 速度损失 line. All times are in ms since the game's
//! first key.

use crate::game::figures::Figures;
use crate::game::input_log::{InputLog, LoggedEdit};
use crate::game::mode::{Language, Mode};
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::score::Stats;
use crate::game::typing::{CharState, SAMPLE_INTERVAL_MS, Session};
use crate::verify::replay::ReplayError;
use std::ops::Range;

/// How many percentile buckets units are coloured in: quintiles, 0 the fastest fifth.
pub const BUCKETS: u8 = 5;

/// How many of the slowest units the report marks.
pub const SLOWEST_MARKED: usize = 10;

/// One unit of the passage: a 字 (any character, punctuation included) in Chinese, a
/// word and the space after it in English.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Its characters in the prompt, in `char` indices.
    pub span: Range<usize>,
    /// The time it took: from the first key of the edit that wrote its first character
    /// to the first key of the next unit's (the game's end for the last), split evenly
    /// over the units whose first characters one edit wrote.
    pub ms: u64,
    /// Its percentile bucket, `0..BUCKETS`: 0 is the fastest fifth of the units, 4 the
    /// slowest. Units that took the same time share a bucket.
    pub bucket: u8,
    /// Some character of it is wrong in the final text.
    pub wrong: bool,
    /// Some character of it was typed, deleted and typed again: a 回改 spot touched it.
    pub corrected: bool,
}

/// A 回改 spot: a run of deletions, with no text typed in between, that removed
/// something.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Correction {
    /// When the run's first deletion was pressed.
    pub at_ms: u64,
    /// Where the caret stood after it: the first character it removed.
    pub position: usize,
    /// How many characters it removed.
    pub deleted: u32,
}

/// The longest time between two edits in which no key is known to have been pressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// When it began.
    pub from_ms: u64,
    /// How long it lasted.
    pub ms: u64,
}

/// 速度损失: the speed the game would have had without each kind of loss, in the mode's
/// [`Mode::speed_unit`] (each defined in docs/scoring.md, "速度损失").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpeedLoss {
    /// The speed as scored.
    pub speed: f64,
    /// Time spent on 回改: deletions, and the share of each edit's time whose text was
    /// deleted later.
    pub correction_ms: u64,
    /// The speed over the game's time minus [`SpeedLoss::correction_ms`]; `None` when
    /// no time is left (here and below).
    pub without_corrections: Option<f64>,
    /// The longest pause, if there was any gap at all.
    pub longest_pause: Option<Pause>,
    /// The speed over the game's time minus the longest pause.
    pub without_longest_pause: Option<f64>,
    /// The speed had every wrong character been right: no 错一罚五 in Chinese, every
    /// typed character counted in English.
    pub without_errors: f64,
}

/// The report of one finished game.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The mode the game was played in.
    pub mode: Mode,
    /// The finished game's stats, as the server's replay finds them.
    pub stats: Stats,
    /// The figures the result screen shows (speed, 击键, 码长, …).
    pub figures: Figures,
    /// Every unit of the typed part of the prompt, in order.
    pub units: Vec<Unit>,
    /// Indices into [`Report::units`] of the slowest units, slowest first (ties in
    /// prompt order), at most [`SLOWEST_MARKED`].
    pub slowest: Vec<usize>,
    /// For each whole second of the game (`k` covers `k`..`k + 1` s, the last one also
    /// its end), the prompt characters of the final text committed in it.
    pub timeline: Vec<Range<usize>>,
    /// The 回改 spots, in order.
    pub corrections: Vec<Correction>,
    /// 速度损失: the speed without each kind of loss.
    pub speed_loss: SpeedLoss,
    /// 键准: the share of keys pressed whose text is in the final text (docs/scoring.md).
    pub key_accuracy: f64,
    /// 打词: the share of the final text's characters committed by IME compositions of
    /// two 字 or more; `None` in the English modes, typed without an input method.
    pub phrase_share: Option<f64>,
}

/// One edit as the report follows it.
#[derive(Debug, Clone, Copy)]
struct Step {
    /// When it was made.
    at: u64,
    /// When its first key was pressed: a composition's start, else `at`.
    first_key: u64,
    /// Keys it took (composition keys included).
    keys: u32,
    /// Characters it carried (landed or not); 0 for deletions and cancelled compositions.
    text_chars: u32,
    /// Characters it put in the text, and how many of those were deleted later.
    landed: u32,
    deleted: u32,
    /// The time from the previous edit (or the game's start) to this one.
    interval: u64,
    /// An IME composition that committed two 字 or more.
    phrase: bool,
}

impl Step {
    fn surviving(&self) -> u32 {
        self.landed - self.deleted
    }

    /// The share of its carried text that is not in the final text; all of a deletion
    /// or a cancelled composition.
    fn wasted_share(&self) -> f64 {
        if self.text_chars == 0 {
            1.0
        } else {
            1.0 - f64::from(self.surviving()) / f64::from(self.text_chars)
        }
    }
}

/// Replays `log` on `prompt` in `mode` and reports the finished game. Fails as the
/// server's replay does: an unreadable log, one the session would not have recorded, or
/// a game that did not finish.
pub fn report(
    test: impl Into<Test>,
    prompt: &Prompt,
    log: &InputLog,
) -> Result<Report, ReplayError> {
    let test = test.into();
    let mode = test.mode;
    let mut session = Session::new(test, prompt);
    let mut steps: Vec<Step> = Vec::new();
    // The step that wrote each character of the current text.
    let mut writers: Vec<usize> = Vec::new();
    let mut ever_deleted = vec![false; session.target().len()];
    let mut corrections: Vec<Correction> = Vec::new();
    let mut in_deletion_run = false;
    let mut composing_since: Option<u64> = None;
    let mut start: Option<u64> = None;
    let mut previous_step_at = 0;
    let mut previous_entry_at = 0;
    let mut longest_pause: Option<Pause> = None;
    let mut last_at = 0;

    for entry in log.entries() {
        let entry = entry?;
        let at = entry.at;
        last_at = at;
        if session.is_finished() {
            // Ignored by the session, so not what it records: refused below.
            session.apply_logged(at, entry.edit);
            continue;
        }
        let caret_before = session.caret();
        let started_before = start.is_some();
        session.apply_logged(at, entry.edit);
        if start.is_none() && session.is_started() {
            start = Some(at);
            previous_step_at = at;
            previous_entry_at = at;
        }
        let Some(game_start) = start else {
            // Deletions before the first key: they never start the clock.
            in_deletion_run = false;
            continue;
        };
        let inside_composition =
            matches!(entry.edit, LoggedEdit::CompositionEnd { .. }) && composing_since.is_some();
        if started_before && !inside_composition {
            note_pause(&mut longest_pause, previous_entry_at, at, game_start);
        }
        previous_entry_at = at;
        let interval = at - previous_step_at;
        let caret_after = session.caret();
        match entry.edit {
            LoggedEdit::CompositionStart => {
                composing_since = Some(at);
                continue;
            }
            LoggedEdit::Commit(text) | LoggedEdit::CompositionEnd { text, .. } => {
                in_deletion_run = false;
                let (first_key, keys, composed) = match entry.edit {
                    // Not before the previous edit: a commit made while the composition
                    // was open came first, and units keep the order their text came in.
                    LoggedEdit::CompositionEnd { keys, .. } => (
                        composing_since.take().unwrap_or(at).max(previous_step_at),
                        keys,
                        true,
                    ),
                    _ => (at, count(text.chars().count()), false),
                };
                let text_chars = count(text.chars().count());
                let landed = caret_after - caret_before;
                writers.extend(std::iter::repeat_n(steps.len(), landed));
                steps.push(Step {
                    at,
                    first_key,
                    keys,
                    text_chars,
                    landed: count(landed),
                    deleted: 0,
                    interval,
                    phrase: composed && text_chars >= 2,
                });
            }
            LoggedEdit::Backspace | LoggedEdit::DeleteWord => {
                let removed = caret_before - caret_after;
                for position in caret_after..caret_before {
                    steps[writers[position]].deleted += 1;
                    ever_deleted[position] = true;
                }
                writers.truncate(caret_after);
                if removed > 0 {
                    match corrections.last_mut() {
                        Some(run) if in_deletion_run => {
                            run.position = caret_after;
                            run.deleted += count(removed);
                        }
                        _ => corrections.push(Correction {
                            at_ms: at - game_start,
                            position: caret_after,
                            deleted: count(removed),
                        }),
                    }
                    in_deletion_run = true;
                }
                steps.push(Step {
                    at,
                    first_key: at,
                    keys: 1,
                    text_chars: 0,
                    landed: 0,
                    deleted: 0,
                    interval,
                    phrase: false,
                });
            }
        }
        previous_step_at = at;
    }
    if session.input_log() != *log {
        return Err(ReplayError::NotAsRecorded);
    }
    session.run_out(last_at);
    let stats = session.result().ok_or(ReplayError::Unfinished { mode })?;
    let start = start.expect("a game with a result has started");
    let end = start + stats.duration_ms;
    // A `time` game may end on a pause after its last edit.
    note_pause(&mut longest_pause, previous_entry_at, end, start);

    let figures = Figures::of(mode, &stats, session.samples(), session.key_counts());
    let mut units = units_of(mode, session.target(), session.caret());
    time_units(&mut units, &writers, &steps, start, end);
    for unit in &mut units {
        unit.wrong = unit
            .span
            .clone()
            .any(|i| session.char_state(i) == CharState::Incorrect);
        unit.corrected = unit.span.clone().any(|i| ever_deleted[i]);
    }
    assign_buckets(&mut units);
    let slowest = slowest(&units);
    let timeline = timeline(&writers, &steps, start, end);

    let correction_ms = steps
        .iter()
        .map(|step| step.interval as f64 * step.wasted_share())
        .sum::<f64>()
        .round() as u64;
    let speed_over = |removed_ms: u64| {
        let duration_ms = stats.duration_ms.saturating_sub(removed_ms);
        (duration_ms > 0).then(|| {
            mode.speed(&Stats {
                duration_ms,
                ..stats
            })
        })
    };
    let speed_loss = SpeedLoss {
        speed: figures.speed,
        correction_ms,
        without_corrections: speed_over(correction_ms),
        longest_pause,
        without_longest_pause: speed_over(longest_pause.map_or(0, |pause| pause.ms)),
        without_errors: mode.speed(&Stats {
            correct_chars: stats.correct_chars + stats.errors,
            errors: 0,
            ..stats
        }),
    };

    let pressed = session.key_counts().pressed;
    let effective_keys: f64 = steps
        .iter()
        .map(|step| f64::from(step.keys) * (1.0 - step.wasted_share()))
        .sum();
    let key_accuracy = if pressed == 0 {
        1.0
    } else {
        effective_keys / f64::from(pressed)
    };
    let text_len = writers.len();
    let phrase_share = (mode.language() == Language::Chinese && text_len > 0).then(|| {
        let in_phrases = writers.iter().filter(|&&w| steps[w].phrase).count();
        in_phrases as f64 / text_len as f64
    });

    Ok(Report {
        mode,
        stats,
        figures,
        units,
        slowest,
        timeline,
        corrections,
        speed_loss,
        key_accuracy,
        phrase_share,
    })
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Keeps the longer of `longest` and the gap from `from` to `to` (the first one found
/// wins a tie).
fn note_pause(longest: &mut Option<Pause>, from: u64, to: u64, start: u64) {
    let ms = to.saturating_sub(from);
    if ms > 0 && longest.is_none_or(|pause| ms > pause.ms) {
        *longest = Some(Pause {
            from_ms: from - start,
            ms,
        });
    }
}

/// The units of the first `typed` characters of `target`, untimed.
fn units_of(mode: Mode, target: &[char], typed: usize) -> Vec<Unit> {
    let unit = |span| Unit {
        span,
        ms: 0,
        bucket: 0,
        wrong: false,
        corrected: false,
    };
    match mode.language() {
        Language::Chinese => (0..typed).map(|i| unit(i..i + 1)).collect(),
        Language::English => {
            let mut units = Vec::new();
            let mut begin = 0;
            for (i, &c) in target[..typed].iter().enumerate() {
                if c == ' ' {
                    units.push(unit(begin..i + 1));
                    begin = i + 1;
                }
            }
            if begin < typed {
                units.push(unit(begin..typed));
            }
            units
        }
    }
}

/// Gives each unit its time: units whose first characters one edit wrote form a group;
/// a group runs from its edit's first key to the next group's (the first group from the
/// game's start, the last to its end), split evenly, the odd ms to the first units.
fn time_units(units: &mut [Unit], writers: &[usize], steps: &[Step], start: u64, end: u64) {
    let writer = |unit: &Unit| writers[unit.span.start];
    let mut group_begin = 0;
    while group_begin < units.len() {
        let step = writer(&units[group_begin]);
        let group_end = (group_begin..units.len())
            .find(|&i| writer(&units[i]) != step)
            .unwrap_or(units.len());
        let from = if group_begin == 0 {
            start
        } else {
            steps[step].first_key
        };
        let to = units
            .get(group_end)
            .map_or(end, |next| steps[writer(next)].first_key);
        let ms = to.saturating_sub(from);
        let size = (group_end - group_begin) as u64;
        for (k, unit) in units[group_begin..group_end].iter_mut().enumerate() {
            unit.ms = ms / size + u64::from((k as u64) < ms % size);
        }
        group_begin = group_end;
    }
}

/// A unit's bucket is where the first unit of its time ranks among all, in fifths.
fn assign_buckets(units: &mut [Unit]) {
    let mut times: Vec<u64> = units.iter().map(|unit| unit.ms).collect();
    times.sort_unstable();
    let n = times.len();
    for unit in units {
        let rank = times.partition_point(|&ms| ms < unit.ms);
        unit.bucket = u8::try_from(rank * usize::from(BUCKETS) / n).unwrap_or(BUCKETS - 1);
    }
}

fn slowest(units: &[Unit]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..units.len()).collect();
    // Stable: equal times stay in prompt order.
    order.sort_by(|&a, &b| units[b].ms.cmp(&units[a].ms));
    order.truncate(SLOWEST_MARKED);
    order
}

/// The characters of the final text committed in each whole second. The edits that
/// wrote them come in prompt order, so each second's characters are one range.
fn timeline(writers: &[usize], steps: &[Step], start: u64, end: u64) -> Vec<Range<usize>> {
    let seconds = (end - start).div_ceil(SAMPLE_INTERVAL_MS).max(1);
    let second_of = |position: usize| {
        ((steps[writers[position]].at - start) / SAMPLE_INTERVAL_MS).min(seconds - 1)
    };
    let mut position = 0;
    (0..seconds)
        .map(|second| {
            let begin = position;
            while position < writers.len() && second_of(position) <= second {
                position += 1;
            }
            begin..position
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::typing::Edit;
    use crate::game::typing::tests::random_edit;
    use proptest::prelude::*;

    fn prompt(text: &str) -> Prompt {
        Prompt::new(text).unwrap()
    }

    /// Plays `edits` (each at its time) and reports the game.
    fn play(mode: Mode, text: &str, edits: &[(u64, Edit)]) -> Report {
        let p = prompt(text);
        let mut session = Session::new(mode, &p);
        for (at, edit) in edits {
            session.apply(edit.clone(), *at);
        }
        report(mode, &p, &session.input_log()).expect("a finished game")
    }

    /// A composition committing `text` at `end` after `keys` keys from `start`.
    fn compose(start: u64, end: u64, keys: usize, text: &str) -> Vec<(u64, Edit)> {
        let mut edits = vec![(start, Edit::CompositionStart)];
        // One update per key, the one choosing the candidate included.
        for key in 1..=keys {
            edits.push((start + 1, Edit::CompositionUpdate("x".repeat(key))));
        }
        edits.push((end, Edit::CompositionEnd(text.into())));
        edits
    }

    fn unit_ms(report: &Report) -> Vec<u64> {
        report.units.iter().map(|u| u.ms).collect()
    }

    #[test]
    fn zh_units_time_from_composition_to_composition_split_over_phrases() {
        // 学而 in one composition from 1 s, 时 from 2.6 s, 习之 from 3 s, ends at 4.5 s.
        let edits = [
            compose(1_000, 1_400, 4, "学而"),
            compose(2_600, 2_900, 3, "时"),
            compose(3_000, 4_500, 6, "习之"),
        ]
        .concat();
        let r = play(Mode::Zh, "学而时习之", &edits);
        assert_eq!(r.stats.duration_ms, 3_500);
        // 学而: 1.6 s over two; 时: 0.4 s; 习之: 1.5 s over two.
        assert_eq!(unit_ms(&r), [800, 800, 400, 750, 750]);
        assert_eq!(unit_ms(&r).iter().sum::<u64>(), r.stats.duration_ms);
        assert_eq!(r.slowest, [0, 1, 3, 4, 2]);
        assert_eq!(
            r.units.iter().map(|u| u.bucket).collect::<Vec<_>>(),
            [3, 3, 0, 1, 1]
        );
        // Every 字 came in a composition; 4 of 5 in phrases.
        assert_eq!(r.phrase_share, Some(0.8));
        assert_eq!(r.key_accuracy, 1.0);
        // Composed 字 land when committed: 学而 at 0.4 s, 时 at 1.9 s, 习之 at 3.5 s
        // (the end, so in the last second).
        assert_eq!(r.timeline, [0..2, 2..3, 3..3, 3..5]);
        // The pause: 1.2 s between the first commit and the next composition.
        assert_eq!(
            r.speed_loss.longest_pause,
            Some(Pause {
                from_ms: 400,
                ms: 1_200
            })
        );
    }

    #[test]
    fn the_slowest_zi_is_found_among_many() {
        // 22 字 one per 300 ms, but the 14th comes 2.5 s after the 13th (index 12).
        let text = "天地玄黄宇宙洪荒日月盈昃辰宿列张寒来暑往秋收";
        let mut at = 0;
        let mut edits = Vec::new();
        for (i, zi) in text.chars().enumerate() {
            at += if i == 13 { 2_500 } else { 300 };
            edits.extend(compose(at - 200, at, 3, &zi.to_string()));
        }
        let r = play(Mode::Zh, text, &edits);
        let slowest = &r.units[r.slowest[0]];
        assert_eq!(
            slowest.span,
            12..13,
            "its time runs to the next 字's first key"
        );
        assert_eq!(slowest.ms, 2_500);
        assert_eq!(slowest.bucket, BUCKETS - 1);
        assert_eq!(r.slowest.len(), SLOWEST_MARKED);
        assert!(r.slowest[1..].iter().all(|&i| r.units[i].ms == 300));
        assert_eq!(
            r.speed_loss.longest_pause.map(|p| (p.from_ms, p.ms)),
            Some((3_800, 2_300)),
            "from the 13th 字's commit to the 14th's composition"
        );
        // All but the slowest took 300 ms or less (the last, to the end, 200 ms): they
        // rank in the fastest fifth.
        assert_eq!(r.units.iter().filter(|u| u.bucket == 0).count(), 21);
    }

    #[test]
    fn a_correction_is_marked_and_its_time_taken_out() {
        // 学 right; 儿 wrong, deleted, 而 retyped; then 时.
        let edits = [
            compose(0, 500, 3, "学"),
            compose(1_000, 1_500, 2, "儿"),
            vec![(2_000, Edit::Backspace)],
            compose(2_500, 3_000, 2, "而"),
            compose(3_500, 4_000, 3, "时"),
        ]
        .concat();
        let r = play(Mode::Zh, "学而时", &edits);
        assert_eq!(
            r.corrections,
            [Correction {
                at_ms: 2_000,
                position: 1,
                deleted: 1
            }]
        );
        assert_eq!(
            r.units.iter().map(|u| u.corrected).collect::<Vec<_>>(),
            [false, true, false]
        );
        assert!(r.units.iter().all(|u| !u.wrong));
        // 儿 took 1 s (0.5 → 1.5 s), its Backspace 0.5 s.
        assert_eq!(r.speed_loss.correction_ms, 1_500);
        // 3 字 in 4 s = 45 字/分; in 2.5 s, 72.
        assert_eq!(r.speed_loss.speed, 45.0);
        assert_eq!(r.speed_loss.without_corrections, Some(72.0));
        // A unit's time starts at the edit that wrote it last: the detour through 儿
        // is in 学's time, up to 而's composition.
        assert_eq!(unit_ms(&r), [2_500, 1_000, 500]);
        // Keys: 3 + 2 + 1 + 2 + 3 = 11, of which 儿's 2 and the Backspace are wasted.
        assert_eq!(r.key_accuracy, 8.0 / 11.0);
        assert_eq!(r.figures.corrections, 1);
    }

    #[test]
    fn english_words_time_from_first_key_to_first_key() {
        // "the " from 0, "cat " from 1 s, "sat" from 4 s: 'c', then a pause before "at ".
        let mut edits = Vec::new();
        for (at, key) in [
            (0, "t"),
            (100, "h"),
            (200, "e"),
            (300, " "),
            (1_000, "c"),
            (3_000, "a"),
            (3_100, "t"),
            (3_200, " "),
            (4_000, "s"),
            (4_100, "a"),
            (4_300, "x"),
        ] {
            edits.push((at, Edit::Commit(key.into())));
        }
        let r = play(Mode::Words, "the cat sat", &edits);
        assert_eq!(
            r.units.iter().map(|u| u.span.clone()).collect::<Vec<_>>(),
            [0..4, 4..8, 8..11]
        );
        assert_eq!(unit_ms(&r), [1_000, 3_000, 300]);
        assert_eq!(r.slowest, [1, 0, 2]);
        assert_eq!(
            r.units.iter().map(|u| u.wrong).collect::<Vec<_>>(),
            [false, false, true]
        );
        assert_eq!(
            r.speed_loss.longest_pause,
            Some(Pause {
                from_ms: 1_000,
                ms: 2_000
            })
        );
        // 10 right characters in 4.3 s; without the pause, in 2.3 s.
        assert_eq!(
            r.speed_loss.without_longest_pause,
            Some(2.0 * 60_000.0 / 2_300.0)
        );
        // 11 characters counted had the x been right.
        assert_eq!(r.speed_loss.without_errors, 2.2 * 60_000.0 / 4_300.0);
        assert_eq!(r.phrase_share, None);
        assert_eq!(r.timeline, [0..4, 4..5, 5..5, 5..8, 8..11]);
        assert!(r.corrections.is_empty());
    }

    #[test]
    fn a_paste_like_commit_of_two_words_shares_its_time() {
        let r = play(
            Mode::Words,
            "ab cd ef",
            &[
                (0, Edit::Commit("ab ".into())),
                (1_000, Edit::Commit("cd e".into())),
                (2_000, Edit::Commit("f".into())),
            ],
        );
        // "cd " and "ef" both start with the commit at 1 s: they share the 1 s to the end.
        assert_eq!(unit_ms(&r), [1_000, 500, 500]);
        // The game lasted 2 s: "f", at its end, is in the last second.
        assert_eq!(r.timeline, [0..3, 3..8]);
    }

    #[test]
    fn unreadable_or_unfinished_logs_are_refused_as_the_server_refuses_them() {
        let p = prompt("abc");
        let mut session = Session::new(Mode::Words, &p);
        session.commit("ab", 0);
        assert_eq!(
            report(Mode::Words, &p, &session.input_log()),
            Err(ReplayError::Unfinished { mode: Mode::Words })
        );
        let mut bytes = session.input_log().as_bytes().to_vec();
        bytes.push(0x02); // A Backspace at the same time, which the session would record...
        bytes.push(0x07); // ...then an unknown tag.
        assert!(matches!(
            report(Mode::Words, &p, &InputLog::from_bytes(bytes)),
            Err(ReplayError::Unreadable(_))
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Whatever was typed, the units partition the typed text and their times the
        /// game, the timeline covers the text once, and no loss makes a game slower.
        #[test]
        fn any_game_reports_consistently(
            mode in proptest::sample::select(Mode::ALL.to_vec()),
            edits in proptest::collection::vec(random_edit(2_000), 0..80),
        ) {
            let p = prompt("ab ba 学 ab");
            let mut session = Session::new(mode, &p);
            let mut now = 0;
            for (gap, edit) in edits {
                now += gap;
                session.apply(edit, now);
            }
            let rest: String = session.target()[session.caret()..].iter().collect();
            session.commit(&rest, now + 1);
            session.tick(now + 61_000);
            if session.result().is_none() {
                // A `time` game whose clock ran out on an open composition, nothing typed.
                prop_assert_eq!(
                    report(mode, &p, &session.input_log()),
                    Err(ReplayError::Unfinished { mode })
                );
                return Ok(());
            }
            let r = report(mode, &p, &session.input_log()).unwrap();
            let mut next = 0;
            for unit in &r.units {
                prop_assert_eq!(unit.span.start, next);
                next = unit.span.end;
                prop_assert!(unit.bucket < BUCKETS);
            }
            prop_assert_eq!(next, session.caret());
            if !r.units.is_empty() {
                prop_assert_eq!(r.units.iter().map(|u| u.ms).sum::<u64>(), r.stats.duration_ms);
            }
            let mut next = 0;
            for second in &r.timeline {
                prop_assert_eq!(second.start, next);
                next = second.end;
            }
            prop_assert_eq!(next, session.caret());
            prop_assert!(r.speed_loss.correction_ms <= r.stats.duration_ms);
            for without in [r.speed_loss.without_corrections, r.speed_loss.without_longest_pause] {
                prop_assert!(without.is_none_or(|speed| speed >= r.speed_loss.speed));
            }
            prop_assert!(r.speed_loss.without_errors >= r.speed_loss.speed);
            prop_assert!((0.0..=1.0).contains(&r.key_accuracy));
            let deleted: u32 = r.corrections.iter().map(|c| c.deleted).sum();
            prop_assert!(r.corrections.len() as u32 <= r.figures.corrections);
            prop_assert!(deleted >= r.figures.corrections);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn simulated_games_report_consistently(
            mode in proptest::sample::select(Mode::ALL.to_vec()),
            seed in 1..1_000u64,
            wpm in 40..160u32,
        ) {
            use crate::game::corpora::Corpora;
            use crate::game::prompt_id::Seed;
            use crate::verify::simulate::{Typist, play};
            let typist = Typist { seed, ..Typist::steady_human(wpm) };
            let played = play(Corpora::shipped(), mode, Seed::new(seed).unwrap(), &typist);
            let text = Corpora::shipped().prompt(mode, &played.prompt).unwrap();
            let r = report(mode, &text, &played.session.input_log()).unwrap();
            let stats = played.session.result().unwrap();
            prop_assert_eq!(r.stats, stats);
            // The units cover the typed text, and their times the game.
            let covered: usize = r.units.iter().map(|u| u.span.len()).sum();
            prop_assert_eq!(covered, played.session.caret());
            prop_assert_eq!(r.units.iter().map(|u| u.ms).sum::<u64>(), stats.duration_ms);
            let timeline: usize = r.timeline.iter().map(|range| range.len()).sum();
            prop_assert_eq!(timeline, played.session.caret());
            prop_assert_eq!(r.timeline.len() as u64, stats.duration_ms.div_ceil(1000).max(1));
            // The typist fixes each mistake with one Backspace: one spot per mistake.
            prop_assert_eq!(r.corrections.len() as u32, r.figures.corrections);
            for without in [r.speed_loss.without_corrections, r.speed_loss.without_longest_pause] {
                prop_assert!(without.is_none_or(|speed| speed >= r.speed_loss.speed));
            }
            prop_assert!(r.speed_loss.without_errors >= r.speed_loss.speed);
            prop_assert!(r.key_accuracy > 0.0 && r.key_accuracy <= 1.0);
        }
    }
}
