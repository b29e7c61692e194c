//! The typing session: what the player has typed against the prompt, and the counters
//! that score it (docs/scoring.md).
//!
//! The app feeds every input event in, with the time it happened in milliseconds on one
//! monotonic clock (the browser's `event.timeStamp` / `performance.now()`), and reads
//! back per-character states, the caret, live [`Stats`] and per-second samples. Nothing
//! here knows about a browser, so the rules are tested natively.
//!
//! The rules:
//! - Typing is positional: the character typed at the caret is compared with the
//!   prompt's character there. A space typed in the middle of a word is simply wrong.
//! - The clock starts at the first keystroke: a committed character or the start of an
//!   IME composition (composing the first 字 takes time too). Backspace never starts it.
//! - Every committed character is one keystroke (in `zh` an IME commits whole 字, so a
//!   keystroke is a committed character); it is a correct keystroke if it matched the
//!   prompt where it landed. Deleting it later does not undo either count, so accuracy
//!   is per keypress.
//! - Text inside an IME composition is shown but never counted; only its commit counts.
//! - Backspace fixes the current word: in the English modes it never deletes a space
//!   that was typed correctly (so finished words stay), in `zh` it deletes freely.
//! - `time` ends 60 s after the first keystroke, exactly: input after that is ignored,
//!   however late the timer fires. The other modes end when the typed text is as long
//!   as the prompt (its last character typed, right or wrong).
//! - `correct_chars`/`errors` are the right/wrong characters of the final text.
//! - Apart from the score, the session counts the keys pressed ([`KeyCounts`]): each
//!   committed character typed outside a composition, each Backspace or delete-word,
//!   and each key inside a composition: one per update, the commit's included (a
//!   browser updates the composition to the chosen text before ending it). These
//!   give the 击键 and 码长 that 跟打 players compare; they never touch the value.
//!
//! Every correct character of the final text was put there by the last keystroke at
//! its position, which was then correct, so `correct_chars ≤ correct_keystrokes ≤
//! keystrokes` holds for any sequence of events (checked by a property test).
//!
//! The session also records every edit it applies, at the session's own clock, into an
//! [`InputLog`] ([`Session::input_log`]): replaying that log through a fresh session
//! ([`Session::apply_logged`]) reproduces the game exactly, which is how the server
//! verifies results (docs/replay.md).

use crate::game::input_log::{InputLog, LoggedEdit, Recorder};
use crate::game::mode::Mode;
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::score::Stats;

/// How a character of the prompt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CharState {
    /// Not typed yet.
    Pending,
    /// Typed and equal to the prompt's character.
    Correct,
    /// Typed and different from the prompt's character.
    Incorrect,
}

/// The keys a game took, as opposed to the characters it produced: display only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct KeyCounts {
    /// Every key pressed while the game took input, including those inside IME
    /// compositions (one per composition update) and deletions.
    pub pressed: u32,
    /// Backspaces and delete-words that removed something: the 成绩 line's 退格
    /// (docs/scoring.md).
    pub corrections: u32,
}

/// How far apart the speed samples are.
pub const SAMPLE_INTERVAL_MS: u64 = 1_000;

/// One edit the player made, as the input field reports it.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Committed text: typed characters, or what an IME committed.
    Commit(String),
    Backspace,
    DeleteWord,
    CompositionStart,
    /// Text inside an IME composition: shown, never scored.
    CompositionUpdate(String),
    CompositionEnd(String),
}

/// One game being typed.
#[derive(Debug, Clone)]
pub struct Session {
    mode: Mode,
    /// How long a `time` game lasts from its first key; `None` in the other modes.
    time_limit_ms: Option<u64>,
    target: Vec<char>,
    typed: Vec<char>,
    /// How many characters of `typed` match the prompt, kept so stats are O(1).
    correct_in_text: u32,
    keystrokes: u32,
    correct_keystrokes: u32,
    /// Backspace never deletes below this index (see the module rules).
    locked: usize,
    composition: String,
    started_at: Option<u64>,
    ended_at: Option<u64>,
    /// The latest time seen: event times may arrive slightly out of order with the
    /// timer's, and the session's clock never runs backwards.
    now: u64,
    samples: Vec<Stats>,
    /// Composition updates since the composition started: about one per key pressed.
    composing_keys: u32,
    keys: KeyCounts,
    log: Recorder,
}

impl Session {
    /// Feeds `edit`, made at `now` ms, to the session.
    pub fn apply(&mut self, edit: Edit, now: u64) {
        match edit {
            Edit::Commit(text) => self.commit(&text, now),
            Edit::Backspace => self.backspace(now),
            Edit::DeleteWord => self.delete_word(now),
            Edit::CompositionStart => self.composition_start(now),
            Edit::CompositionUpdate(text) => self.composition_update(&text),
            Edit::CompositionEnd(text) => self.composition_end(&text, now),
        }
    }

    /// Feeds an edit read from an input log, made at `at` ms. A composition's updates
    /// are replayed as their count: they are never scored.
    pub fn apply_logged(&mut self, at: u64, edit: LoggedEdit<'_>) {
        match edit {
            LoggedEdit::Commit(text) => self.commit(text, at),
            LoggedEdit::Backspace => self.backspace(at),
            LoggedEdit::DeleteWord => self.delete_word(at),
            LoggedEdit::CompositionStart => self.composition_start(at),
            LoggedEdit::CompositionEnd { text, keys } => {
                if !self.is_finished() {
                    self.composing_keys = keys;
                }
                self.composition_end(text, at);
            }
        }
    }

    /// A game of `test` (a mode, for its public test) on `prompt`.
    pub fn new(test: impl Into<Test>, prompt: &Prompt) -> Session {
        let test = test.into();
        Session {
            mode: test.mode,
            time_limit_ms: test.time_limit_ms(),
            target: prompt.as_str().chars().collect(),
            typed: Vec::new(),
            correct_in_text: 0,
            keystrokes: 0,
            correct_keystrokes: 0,
            locked: 0,
            composition: String::new(),
            started_at: None,
            ended_at: None,
            now: 0,
            samples: Vec::new(),
            composing_keys: 0,
            keys: KeyCounts::default(),
            log: Recorder::default(),
        }
    }

    /// The session ended `limit_ms` after its first key whatever its mode: a timed
    /// custom text (docs/practice.md, "Custom text"), which no board ranks.
    pub fn timed(self, limit_ms: u64) -> Session {
        Session {
            time_limit_ms: Some(limit_ms),
            ..self
        }
    }

    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The prompt's characters.
    pub fn target(&self) -> &[char] {
        &self.target
    }

    /// Where the next character lands: the number of characters typed.
    pub fn caret(&self) -> usize {
        self.typed.len()
    }

    /// The text typed so far, right and wrong characters alike.
    pub fn typed(&self) -> &[char] {
        &self.typed
    }

    pub fn char_state(&self, index: usize) -> CharState {
        match self.typed.get(index) {
            None => CharState::Pending,
            Some(typed) if *typed == self.target[index] => CharState::Correct,
            Some(_) => CharState::Incorrect,
        }
    }

    /// The IME composition in progress (shown to the player, never scored).
    pub fn composition(&self) -> &str {
        &self.composition
    }

    pub fn is_started(&self) -> bool {
        self.started_at.is_some()
    }

    pub fn is_finished(&self) -> bool {
        self.ended_at.is_some()
    }

    /// Milliseconds played so far (or in all, once finished).
    pub fn elapsed_ms(&self) -> u64 {
        match self.started_at {
            Some(start) => self.ended_at.unwrap_or(self.now) - start,
            None => 0,
        }
    }

    /// The counters as of the latest event or tick.
    pub fn stats(&self) -> Stats {
        self.stats_after(self.elapsed_ms())
    }

    /// The finished game's stats, if it ended with something typed (a `time` game whose
    /// only input was an abandoned composition has nothing to score).
    pub fn result(&self) -> Option<Stats> {
        (self.is_finished() && self.keystrokes > 0).then(|| self.stats())
    }

    /// Cumulative stats at each whole second of play, plus one at the end if the game
    /// ended between seconds: the points of the speed chart.
    pub fn samples(&self) -> &[Stats] {
        &self.samples
    }

    /// The keys pressed and corrections made so far.
    pub fn key_counts(&self) -> KeyCounts {
        self.keys
    }

    /// Every edit applied so far, with its time: what a submission carries.
    pub fn input_log(&self) -> InputLog {
        self.log.log()
    }

    /// How long a `time` game (or a [`Session::timed`] one) lasts from its first key;
    /// `None` in the other modes.
    pub fn time_limit_ms(&self) -> Option<u64> {
        self.time_limit_ms
    }

    /// Lets the clock run out after the log's last edit at `last_at`: the page's timer
    /// ends a `time` game its time limit after its first key, whatever came last.
    pub fn run_out(&mut self, last_at: u64) {
        if let Some(limit) = self.time_limit_ms {
            self.tick(last_at + limit);
        }
    }

    /// Lets time pass: takes the samples due and ends a `time` game at its time limit.
    pub fn tick(&mut self, now: u64) {
        self.now = self.now.max(now);
        let Some(start) = self.started_at else {
            return;
        };
        if self.ended_at.is_some() {
            return;
        }
        let end = self
            .time_limit_ms
            .map(|limit| start + limit)
            .filter(|time_up| self.now >= *time_up);
        self.take_samples_until(end.unwrap_or(self.now));
        if let Some(end) = end {
            self.finish(end);
        }
    }

    /// The player committed `text` (typed it, or an IME committed it).
    pub fn commit(&mut self, text: &str, now: u64) {
        if self.accepts_input(now) {
            self.log.record(self.now, LoggedEdit::Commit(text));
            self.press_keys(text.chars().count());
            self.type_text(text);
        }
    }

    /// Puts `text` at the caret, starting the clock.
    fn type_text(&mut self, text: &str) {
        self.start(self.now);
        for typed in text.chars() {
            let Some(&expected) = self.target.get(self.typed.len()) else {
                // Only `time` can run out of prompt (far beyond human speed): ignore.
                break;
            };
            self.keystrokes += 1;
            if typed == expected {
                self.correct_keystrokes += 1;
                self.correct_in_text += 1;
                if typed == ' ' && self.mode != Mode::Zh {
                    self.locked = self.typed.len() + 1;
                }
            }
            self.typed.push(typed);
        }
        if self.mode != Mode::Time && self.typed.len() == self.target.len() {
            self.finish(self.now);
        }
    }

    /// Deletes the character before the caret, unless it belongs to a finished word.
    pub fn backspace(&mut self, now: u64) {
        if self.accepts_input(now) {
            self.log.record(self.now, LoggedEdit::Backspace);
            let caret = self.caret();
            self.delete_one();
            self.count_deletion(caret);
        }
    }

    /// Deletes the character before the caret, unless it belongs to a finished word.
    fn delete_one(&mut self) {
        if self.typed.len() > self.locked {
            self.pop();
        }
    }

    /// Deletes back to the start of the current word (Ctrl+Backspace); in `zh`, whose
    /// passages have no spaces, one character.
    pub fn delete_word(&mut self, now: u64) {
        if !self.accepts_input(now) {
            return;
        }
        self.log.record(self.now, LoggedEdit::DeleteWord);
        let caret = self.caret();
        if self.mode == Mode::Zh {
            self.delete_one();
        } else {
            while self.typed.len() > self.locked && self.typed.last() == Some(&' ') {
                self.pop();
            }
            while self.typed.len() > self.locked && self.typed.last() != Some(&' ') {
                self.pop();
            }
        }
        self.count_deletion(caret);
    }

    /// One deletion key was pressed with the caret at `caret_before`.
    fn count_deletion(&mut self, caret_before: usize) {
        self.press_keys(1);
        if self.caret() < caret_before {
            self.keys.corrections = self.keys.corrections.saturating_add(1);
        }
    }

    fn press_keys(&mut self, count: usize) {
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        self.keys.pressed = self.keys.pressed.saturating_add(count);
    }

    /// An IME composition began: the player is pressing keys, so the clock starts.
    pub fn composition_start(&mut self, now: u64) {
        if self.accepts_input(now) {
            self.log.record(self.now, LoggedEdit::CompositionStart);
            self.start(now);
            self.composition.clear();
            self.composing_keys = 0;
        }
    }

    /// The composition's text changed; shown only.
    pub fn composition_update(&mut self, text: &str) {
        if !self.is_finished() {
            self.composition = text.to_owned();
            self.composing_keys = self.composing_keys.saturating_add(1);
        }
    }

    /// The composition ended, committing `text` (empty if it was cancelled).
    pub fn composition_end(&mut self, text: &str, now: u64) {
        self.composition.clear();
        let keys = std::mem::take(&mut self.composing_keys);
        if self.accepts_input(now) {
            self.log
                .record(self.now, LoggedEdit::CompositionEnd { text, keys });
            self.press_keys(keys as usize);
            self.type_text(text);
        }
    }

    /// Advances the clock to `now` and says whether the game still takes input.
    fn accepts_input(&mut self, now: u64) -> bool {
        self.tick(now);
        !self.is_finished()
    }

    fn start(&mut self, now: u64) {
        if self.started_at.is_none() {
            self.now = self.now.max(now);
            self.started_at = Some(self.now);
        }
    }

    fn pop(&mut self) {
        let index = self.typed.len() - 1;
        if self.char_state(index) == CharState::Correct {
            self.correct_in_text -= 1;
        }
        self.typed.pop();
    }

    fn finish(&mut self, end: u64) {
        self.take_samples_until(end);
        self.ended_at = Some(end);
        let elapsed = self.elapsed_ms();
        if self.samples.last().is_none_or(|s| s.duration_ms < elapsed) {
            self.samples.push(self.stats_after(elapsed));
        }
    }

    /// Records the state at every whole second up to `until`. Between events the state
    /// does not change, so the current state is the state at each boundary passed.
    fn take_samples_until(&mut self, until: u64) {
        let Some(start) = self.started_at else {
            return;
        };
        let elapsed = until - start;
        while (self.samples.len() as u64 + 1) * SAMPLE_INTERVAL_MS <= elapsed {
            let at = (self.samples.len() as u64 + 1) * SAMPLE_INTERVAL_MS;
            self.samples.push(self.stats_after(at));
        }
    }

    fn stats_after(&self, duration_ms: u64) -> Stats {
        Stats {
            duration_ms,
            correct_chars: self.correct_in_text,
            errors: self.typed.len() as u32 - self.correct_in_text,
            keystrokes: self.keystrokes,
            correct_keystrokes: self.correct_keystrokes,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::game::score::{self, TIME_MODE_DURATION_MS, validate};
    use proptest::prelude::*;

    fn session(mode: Mode, text: &str) -> Session {
        Session::new(mode, &Prompt::new(text).unwrap())
    }

    /// Any edit (commits, deletions, compositions, of a few characters of both
    /// languages) at a time below `max_ms`: for the property tests of what replays a
    /// log (`game::report`, `game::playback`).
    pub(crate) fn random_edit(max_ms: u64) -> impl Strategy<Value = (u64, Edit)> {
        let text = proptest::collection::vec(
            proptest::sample::select(vec!['a', 'b', ' ', '学', 'Z']),
            0..3,
        )
        .prop_map(|chars| chars.into_iter().collect::<String>());
        let edit = prop_oneof![
            4 => text.clone().prop_map(Edit::Commit),
            2 => Just(Edit::Backspace),
            1 => Just(Edit::DeleteWord),
            1 => Just(Edit::CompositionStart),
            1 => text.clone().prop_map(Edit::CompositionUpdate),
            1 => text.prop_map(Edit::CompositionEnd),
        ];
        (0..max_ms, edit)
    }

    fn states(s: &Session) -> String {
        (0..s.target().len())
            .map(|i| match s.char_state(i) {
                CharState::Pending => '.',
                CharState::Correct => '+',
                CharState::Incorrect => 'x',
            })
            .collect()
    }

    /// Types `text` one character per event, `gap` ms apart, starting at `at`.
    fn type_chars(s: &mut Session, text: &str, at: u64, gap: u64) -> u64 {
        let mut now = at;
        for c in text.chars() {
            s.commit(&c.to_string(), now);
            now += gap;
        }
        now
    }

    #[test]
    fn clean_words_game() {
        let mut s = session(Mode::Words, "the cat sat");
        assert!(!s.is_started());
        type_chars(&mut s, "the cat sat", 5_000, 500);
        // 11 keystrokes, the last at 5_000 + 10 × 500.
        assert!(s.is_finished());
        let stats = s.result().unwrap();
        assert_eq!(
            stats,
            Stats {
                duration_ms: 5_000,
                correct_chars: 11,
                errors: 0,
                keystrokes: 11,
                correct_keystrokes: 11,
            }
        );
        // 11 / 5 words in 5 s = 26.4 WPM.
        assert_eq!(score::value(Mode::Words, &stats), 2_640);
        assert_eq!(states(&s), "+++++++++++");
        assert_eq!(s.samples().len(), 5);
        assert_eq!(
            s.samples()[0].correct_chars,
            2,
            "keys at 0 and 500 ms; 1000 ms is the 2nd second"
        );
        // Late events are ignored.
        s.commit("x", 20_000);
        assert_eq!(s.result(), Some(stats));
    }

    #[test]
    fn a_fixed_mistake_still_costs_accuracy() {
        let mut s = session(Mode::Quote, "abc de");
        s.commit("a", 0);
        s.commit("x", 100); // wrong
        assert_eq!(states(&s), "+x....");
        s.backspace(200);
        assert_eq!(states(&s), "+.....");
        assert_eq!(s.caret(), 1);
        s.commit("bc dz", 300); // 'z' wrong and the last: the game ends
        assert!(s.is_finished());
        assert_eq!(states(&s), "+++++x");
        assert_eq!(
            s.result().unwrap(),
            Stats {
                duration_ms: 300,
                correct_chars: 5,
                errors: 1,
                keystrokes: 7,
                correct_keystrokes: 5,
            }
        );
    }

    #[test]
    fn backspace_fixes_only_the_current_word_in_english() {
        let mut s = session(Mode::Words, "ab cd ef");
        s.commit("ax cd", 0); // "ax" wrong, its space right
        s.backspace(10);
        s.backspace(20);
        assert_eq!(s.caret(), 3, "stops after the correctly typed space");
        s.backspace(30);
        assert_eq!(s.caret(), 3);
        assert_eq!(states(&s), "+x+.....");
        // A space typed where a letter belongs is a mistake, and can be deleted.
        s.commit("c ", 40);
        assert_eq!(states(&s), "+x++x...");
        s.backspace(50);
        assert_eq!(s.caret(), 4);
        // Ctrl+Backspace clears the current word, but not past the lock.
        s.commit("d e", 60);
        s.delete_word(70);
        assert_eq!(s.caret(), 6);
        s.delete_word(80);
        assert_eq!(s.caret(), 6);
        assert_eq!(s.stats().correct_chars, 5, "a, space, c, d, space");
    }

    #[test]
    fn zh_backspace_is_free_and_counts_committed_characters() {
        let mut s = session(Mode::Zh, "学而时习之，不亦说乎？");
        s.composition_start(1_000);
        assert!(s.is_started(), "the clock starts with the composition");
        s.composition_update("xue");
        s.composition_update("xue er");
        assert_eq!(s.composition(), "xue er");
        assert_eq!(s.stats().keystrokes, 0, "composing is not scored");
        assert_eq!(states(&s), "...........");
        s.composition_end("学儿", 2_000); // 儿 is wrong
        assert_eq!(s.composition(), "");
        assert_eq!(states(&s), "+x.........");
        s.backspace(2_100);
        s.backspace(2_200);
        assert_eq!(s.caret(), 0, "zh deletes back freely");
        s.composition_start(2_300);
        s.composition_end("学而时习之，不亦说", 4_000);
        s.commit("乎", 4_500);
        s.composition_start(4_600);
        s.composition_end("", 4_700); // cancelled: nothing happens
        s.commit("。", 5_000); // should be '？'
        let stats = s.result().unwrap();
        assert_eq!(
            stats,
            Stats {
                duration_ms: 4_000,
                correct_chars: 10,
                errors: 1,
                keystrokes: 13,
                correct_keystrokes: 11,
            }
        );
        // (11 − 5) 字 in 4 s = 90 字/分.
        assert_eq!(score::value(Mode::Zh, &stats), 9_000);
    }

    #[test]
    fn keys_pressed_include_composition_keys_and_deletions() {
        let mut s = session(Mode::Zh, "学而时习之");
        s.composition_start(0);
        // Three keys, then the one that chose the words (which updates the composition).
        for text in ["x", "xu", "xue", "学儿"] {
            s.composition_update(text);
        }
        s.composition_end("学儿", 500);
        s.backspace(600); // deletes 儿: a correction
        s.commit("而", 700); // a character typed directly (punctuation keys do this)
        s.composition_start(800);
        s.composition_update("s");
        s.composition_update(""); // Backspace inside the composition, cancelling it
        s.composition_end("", 900);
        assert_eq!(
            s.key_counts(),
            KeyCounts {
                pressed: 4 + 1 + 1 + 2,
                corrections: 1
            }
        );

        let mut english = session(Mode::Words, "ab cd");
        english.commit("ab ", 0);
        english.backspace(100); // stops at the finished word: a key, no correction
        english.commit("x", 200);
        english.delete_word(300);
        assert_eq!(
            english.key_counts(),
            KeyCounts {
                pressed: 6,
                corrections: 1
            }
        );
        english.commit("cd", 400);
        assert!(english.is_finished());
        english.backspace(500); // after the end: not a key of the game
        assert_eq!(english.key_counts().pressed, 8);
    }

    #[test]
    fn time_mode_lasts_exactly_sixty_seconds() {
        let mut s = session(Mode::Time, "aa bb cc dd ee ff");
        s.commit("a", 10_000);
        s.tick(30_000);
        s.commit("a", 30_000);
        s.tick(69_999);
        assert!(!s.is_finished());
        assert_eq!(s.elapsed_ms(), 59_999);
        // The timer fires late and a keystroke arrives first: it is past the end.
        s.commit("b", 70_040);
        assert!(s.is_finished());
        let stats = s.result().unwrap();
        assert_eq!(stats.duration_ms, 60_000);
        assert_eq!(stats.keystrokes, 2);
        assert_eq!(s.samples().len(), 60);
        assert_eq!(s.samples()[19].keystrokes, 1);
        assert_eq!(
            s.samples()[20].keystrokes,
            2,
            "the key at 20 s is in second 21"
        );
        assert!(validate(Mode::Time, &stats, score::value(Mode::Time, &stats)).is_ok());
    }

    #[test]
    fn time_mode_ignores_input_beyond_the_prompt() {
        let mut s = session(Mode::Time, "ab");
        s.commit("abc", 0);
        assert!(!s.is_finished(), "time ends only with the clock");
        assert_eq!(s.stats().keystrokes, 2);
        s.tick(60_000);
        assert_eq!(s.result().unwrap().duration_ms, 60_000);
    }

    #[test]
    fn a_timed_session_of_any_mode_ends_with_its_clock_or_its_text() {
        let mut zh = session(Mode::Zh, "春天来了花开了").timed(5_000);
        assert_eq!(zh.time_limit_ms(), Some(5_000));
        zh.commit("春天", 1_000);
        zh.tick(5_999);
        assert!(!zh.is_finished());
        zh.tick(6_000);
        assert!(zh.is_finished());
        assert_eq!(zh.result().unwrap().duration_ms, 5_000);
        assert_eq!(zh.result().unwrap().correct_chars, 2);
        // Typed to its end first, it ends there, as its mode does.
        let mut words = session(Mode::Words, "ab").timed(5_000);
        words.commit("ab", 0);
        assert!(words.is_finished());
        assert_eq!(session(Mode::Words, "ab").time_limit_ms(), None);
    }

    #[test]
    fn an_abandoned_composition_has_nothing_to_score() {
        let mut s = session(Mode::Time, "ab");
        s.composition_start(0);
        s.composition_update("a");
        s.tick(61_000);
        assert!(s.is_finished());
        assert_eq!(s.result(), None);
    }

    #[test]
    fn the_clock_never_runs_backwards() {
        let mut s = session(Mode::Words, "abc");
        s.commit("a", 1_000);
        s.tick(1_500);
        // An event stamped before the last tick is counted at the tick's time.
        s.commit("bc", 1_400);
        assert_eq!(s.result().unwrap().duration_ms, 500);
    }

    #[test]
    fn backspace_does_not_start_the_game() {
        let mut s = session(Mode::Words, "ab");
        s.backspace(100);
        s.delete_word(200);
        assert!(!s.is_started());
        s.commit("ab", 1_000);
        assert_eq!(s.result().unwrap().duration_ms, 0);
    }

    /// One input event, with the milliseconds since the previous one.
    #[derive(Debug, Clone)]
    /// An edit, or the timer ticking.
    enum Event {
        Edit(Edit),
        Tick,
    }

    fn text() -> impl Strategy<Value = String> {
        // The prompts' alphabet, a space, and characters that never match.
        proptest::collection::vec(
            proptest::sample::select(vec!['a', 'b', ' ', '学', '而', 'Z']),
            0..4,
        )
        .prop_map(|chars| chars.into_iter().collect())
    }

    fn event() -> impl Strategy<Value = (u64, Event)> {
        let event = prop_oneof![
            4 => text().prop_map(|t| Event::Edit(Edit::Commit(t))),
            2 => Just(Event::Edit(Edit::Backspace)),
            1 => Just(Event::Edit(Edit::DeleteWord)),
            1 => Just(Event::Edit(Edit::CompositionStart)),
            1 => text().prop_map(|t| Event::Edit(Edit::CompositionUpdate(t))),
            1 => text().prop_map(|t| Event::Edit(Edit::CompositionEnd(t))),
            1 => Just(Event::Tick),
        ];
        (0..3_000u64, event)
    }

    fn mode_and_prompt() -> impl Strategy<Value = (Mode, Prompt)> {
        (
            proptest::sample::select(Mode::ALL.to_vec()),
            proptest::sample::select(vec!["ab ba a b", "a", "学而 学", "ab", "ba ab ab ba ba"]),
        )
            .prop_map(|(mode, text)| (mode, Prompt::new(text).unwrap()))
    }

    proptest! {
        #[test]
        fn any_play_yields_consistent_stats(
            (mode, prompt) in mode_and_prompt(),
            events in proptest::collection::vec(event(), 0..60),
        ) {
            let mut s = Session::new(mode, &prompt);
            let mut now = 0;
            for (gap, event) in events {
                now += gap;
                match event {
                    Event::Edit(edit) => s.apply(edit, now),
                    Event::Tick => s.tick(now),
                }
                let stats = s.stats();
                prop_assert!(stats.correct_chars <= stats.correct_keystrokes);
                prop_assert!(stats.correct_keystrokes <= stats.keystrokes);
                prop_assert_eq!((stats.correct_chars + stats.errors) as usize, s.caret());
                let correct = (0..s.target().len()).filter(|&i| s.char_state(i) == CharState::Correct).count();
                prop_assert_eq!(correct, stats.correct_chars as usize);
            }
            // A `time` game's clock runs out.
            s.tick(now + 61_000);
            if let Some(stats) = s.result() {
                if mode == Mode::Time {
                    prop_assert_eq!(stats.duration_ms, TIME_MODE_DURATION_MS);
                }
                prop_assert!(s.samples().windows(2).all(|w| w[0].duration_ms < w[1].duration_ms));
                prop_assert_eq!(s.samples().last().map(|l| l.duration_ms), Some(stats.duration_ms));
                let value = score::value(mode, &stats);
                if let Err(refused) = validate(mode, &stats, value) {
                    prop_assert!(
                        ["TOO_SHORT", "TOO_FAST", "LOW_ACCURACY"].contains(&refused.code().as_str()),
                        "{:?} for {:?}", refused, stats
                    );
                }
            }
        }
    }
}
