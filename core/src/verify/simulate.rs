//! A simulated typist that plays real games through [`Session`] the way the page
//! drives it (one edit per input event, the timer ticking every 100 ms, IME
//! compositions for `zh`): the games tests and benchmarks submit. Feature `simulate`.

use crate::api::ScoreSubmission;
use crate::api::week::week_of;
use crate::game::corpora::Corpora;
use crate::game::mode::{Language, Mode};
use crate::game::options::Test;
use crate::game::prompt::Prompt;
use crate::game::prompt_id::{PromptId, Seed};
use crate::game::rng::SplitMix64;
use crate::game::score;
use crate::game::texts::pick_passage;
use crate::game::typing::{Edit, Session};
use crate::text::{LoadedText, cap};
use uuid::Uuid;

/// How the page's timer refreshes.
const TICK_MS: u64 = 100;
/// Where the simulated page clock starts (any value works: logs keep offsets).
const PAGE_CLOCK_START_MS: u64 = 12_345;

/// How a simulated person types.
#[derive(Debug, Clone, PartialEq)]
pub struct Typist {
    /// The mean time between keys, in ms.
    pub mean_interval_ms: f64,
    /// Intervals are spread uniformly over mean × (1 ± spread): 0 is a metronome, 0.6
    /// a person (coefficient of variation ≈ 0.35).
    pub spread: f64,
    /// One wrong key (then Backspace and the right key) every this many keys; 0: none.
    pub mistake_every: u32,
    /// `zh`: characters per IME composition, and keys pressed per character.
    pub zh_chars_per_commit: usize,
    pub zh_keys_per_char: u32,
    /// `zh`: whether 字 come through IME compositions; if not, each is inserted on its
    /// own, as the e2e and chaos typists insert them (CDP `Input.insertText`).
    pub zh_composes: bool,
    pub seed: u64,
}

impl Typist {
    /// A person at about `wpm`, making a mistake every 40 keys. In `zh` the keys come
    /// at the same pace, two 字 per composition at three keys each: about 1.4 × `wpm`
    /// 字/分.
    pub fn steady_human(wpm: u32) -> Typist {
        Typist {
            mean_interval_ms: 12_000.0 / f64::from(wpm),
            spread: 0.6,
            mistake_every: 40,
            zh_chars_per_commit: 2,
            zh_keys_per_char: 3,
            zh_composes: true,
            seed: u64::from(wpm),
        }
    }

    /// A script: one key every `interval_ms`, never a mistake.
    pub fn metronome(interval_ms: f64) -> Typist {
        Typist {
            mean_interval_ms: interval_ms,
            spread: 0.0,
            mistake_every: 0,
            ..Typist::steady_human(100)
        }
    }

    fn interval(&self, rng: &mut SplitMix64) -> u64 {
        let unit = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let factor = 1.0 - self.spread + 2.0 * self.spread * unit;
        (self.mean_interval_ms * factor).round().max(1.0) as u64
    }
}

/// A finished simulated game.
#[derive(Debug, Clone)]
pub struct Played {
    pub mode: Mode,
    pub prompt: PromptId,
    pub session: Session,
}

impl Played {
    /// The body the page would send for this game, ended at `played_at`.
    pub fn submission(&self, score_id: Uuid, played_at: u64) -> ScoreSubmission {
        let stats = self
            .session
            .result()
            .expect("a simulated game ends with a result");
        ScoreSubmission {
            score_id,
            mode: self.mode,
            week: week_of(played_at as i64),
            value: score::value(self.mode, &stats),
            played_at,
            stats,
            prompt: Some(self.prompt.clone()),
            input: Some(self.session.input_log()),
        }
    }
}

/// Plays the game the page would deal for `test` (a mode, for its public test) and
/// `seed`.
pub fn play(corpora: &Corpora, test: impl Into<Test>, seed: Seed, typist: &Typist) -> Played {
    let test = test.into();
    let mode = test.mode;
    let passage = match mode {
        Mode::Quote => Some(pick_passage(&corpora.quotes, seed.get())),
        Mode::Zh => Some(pick_passage(&corpora.zh, seed.get())),
        Mode::Time | Mode::Words => None,
    };
    let prompt =
        PromptId::for_game(mode, seed, passage.map(|p| p.id.as_str())).with_options(test.options);
    let text = corpora
        .prompt(mode, &prompt)
        .expect("the page's own identities name prompts");
    Played {
        mode,
        prompt,
        session: play_prompt(test, &text, typist),
    }
}

/// Plays a loaded text (跟打) with the rules of its language.
pub fn play_text(text: &LoadedText, typist: &Typist) -> Played {
    Played {
        mode: text.mode(),
        prompt: PromptId::Text { text: text.clone() },
        session: play_prompt(text.mode(), &text.prompt(), typist),
    }
}

/// The longest text a player may load in `language` (3,000 字, or 6,000 characters of
/// English): the shipped passages of that language end to end (English ones a space
/// apart), from their `skip`th character on, cycled as needed.
pub fn longest_text(corpora: &Corpora, language: Language, skip: usize) -> LoadedText {
    let (passages, separator) = match language {
        Language::Chinese => (&corpora.zh, ""),
        Language::English => (&corpora.quotes, " "),
    };
    let text: String = passages
        .passages()
        .iter()
        .flat_map(|passage| [passage.text.as_str(), separator])
        .flat_map(str::chars)
        .cycle()
        .skip(skip)
        .take(cap(language))
        .collect();
    let text = LoadedText::new(&text).expect("shipped passages load as one text");
    assert_eq!(
        text.language(),
        language,
        "shipped passages read as their language"
    );
    text
}

/// Types `prompt` in `test` (a mode, for its public test) until the game ends.
pub fn play_prompt(test: impl Into<Test>, prompt: &Prompt, typist: &Typist) -> Session {
    let test = test.into();
    let mode = test.mode;
    let mut page = Page {
        session: Session::new(test, prompt),
        now: PAGE_CLOCK_START_MS,
        rng: SplitMix64::new(typist.seed),
        keys: 0,
    };
    let target: Vec<char> = prompt.as_str().chars().collect();
    while !page.session.is_finished() {
        let caret = page.session.caret();
        if caret >= target.len() {
            // Only `time` outlives its prompt: the timer ends it.
            page.wait(test.time_limit_ms().unwrap_or(TICK_MS));
            continue;
        }
        if mode == Mode::Zh && typist.zh_composes {
            let end = (caret + typist.zh_chars_per_commit).min(target.len());
            let text: String = target[caret..end].iter().collect();
            page.compose(&text, typist);
        } else {
            page.key(Edit::Commit(target[caret].to_string()), typist);
        }
    }
    page.session
}

/// The page around the session: its clock, its timer, and the typist's hands.
struct Page {
    session: Session,
    now: u64,
    rng: SplitMix64,
    keys: u32,
}

impl Page {
    /// Waits `ms`, letting the timer tick as the page's does.
    fn wait(&mut self, ms: u64) {
        let until = self.now + ms;
        let mut tick = (self.now / TICK_MS + 1) * TICK_MS;
        while tick <= until && !self.session.is_finished() {
            self.session.tick(tick);
            tick += TICK_MS;
        }
        self.now = until;
    }

    /// One key after a human pause; now and then a wrong key fixed at once.
    fn key(&mut self, edit: Edit, typist: &Typist) {
        if self.mistake_due(typist) {
            let wrong = match &edit {
                Edit::Commit(right) if right == "x" => "z",
                _ => "x",
            };
            self.press(Edit::Commit(wrong.into()), typist);
            self.press(Edit::Backspace, typist);
        }
        self.press(edit, typist);
    }

    /// An IME composition committing `text`, a few keys per character.
    fn compose(&mut self, text: &str, typist: &Typist) {
        if self.mistake_due(typist) {
            let wrong = if text.starts_with('的') {
                "了"
            } else {
                "的"
            };
            self.press(Edit::Commit(wrong.into()), typist);
            self.press(Edit::Backspace, typist);
        }
        self.press(Edit::CompositionStart, typist);
        let keys = typist.zh_keys_per_char * text.chars().count() as u32;
        for key in 1..keys {
            let pause = typist.interval(&mut self.rng);
            self.wait(pause);
            self.session
                .apply(Edit::CompositionUpdate("x".repeat(key as usize)), self.now);
        }
        self.press(Edit::CompositionEnd(text.into()), typist);
    }

    fn press(&mut self, edit: Edit, typist: &Typist) {
        let pause = typist.interval(&mut self.rng);
        self.wait(pause);
        self.session.apply(edit, self.now);
    }

    fn mistake_due(&mut self, typist: &Typist) -> bool {
        self.keys += 1;
        typist.mistake_every > 0 && self.keys.is_multiple_of(typist.mistake_every)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plays_every_mode_to_a_result_near_its_speed() {
        let corpora = Corpora::shipped();
        for mode in Mode::ALL {
            let played = play(
                corpora,
                mode,
                Seed::new(5).unwrap(),
                &Typist::steady_human(100),
            );
            let stats = played.session.result().expect("a result");
            let speed = score::value(mode, &stats) / 100;
            let expected = match mode {
                // Every 40 keys: a wrong key and a Backspace, so ~95 % of keys count.
                Mode::Time | Mode::Words | Mode::Quote => 85..=100,
                // 3.5 key intervals per 字 at 120 ms: ~143 字/分.
                Mode::Zh => 125..=150,
            };
            assert!(expected.contains(&speed), "{mode}: {speed}");
            if mode == Mode::Time {
                assert_eq!(stats.duration_ms, score::TIME_MODE_DURATION_MS);
            }
        }
    }
}
