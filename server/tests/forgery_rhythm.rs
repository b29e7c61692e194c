//! Forged rhythms (docs/replay.md, "Held results" and "What a log may hold"): logs a
//! script writes, sent through the API, at and just inside every timing threshold. At
//! a threshold the result is held (or refused) and is on no public board; just inside
//! it, the same kind of log goes public, so each rule bites exactly where it says.

mod common;

use common::scenarios::{leaderboard, submit};
use common::{Options, TestServer, assert_error, post_json, with_token};
use keydo_core::api::ScoreSubmission;
use keydo_core::api::week::week_of;
use keydo_core::game::corpora::Corpora;
use keydo_core::game::score;
use keydo_core::verify::bounds::max_log_bytes;
use keydo_core::{Mode, Passage, Prompt, PromptId, Seed, Session};
use keydo_server::clock::Clock;
use serde_json::Value;
use uuid::Uuid;

/// A person's intervals: they swing between 0.4 and 2 × their mean.
const SWING: [u64; 10] = [95, 140, 60, 220, 80, 110, 45, 170, 100, 70];

/// `n` human intervals adding up to exactly `total` ms.
fn human(total: u64, n: usize) -> Vec<u64> {
    let weights: Vec<u64> = SWING.iter().copied().cycle().take(n).collect();
    let sum: u64 = weights.iter().sum();
    let mut intervals: Vec<u64> = weights.iter().map(|w| w * total / sum).collect();
    let short = total - intervals.iter().sum::<u64>();
    *intervals.last_mut().unwrap() += short;
    intervals
}

fn words_prompt(seed: u64) -> (PromptId, Prompt) {
    let id = PromptId::for_game(Mode::Words, Seed::new(seed).unwrap(), None);
    let prompt = Corpora::shipped().prompt(Mode::Words, &id).unwrap();
    (id, prompt)
}

/// The first passage of `mode` with at least `chars` characters.
fn passage(mode: Mode, chars: usize) -> (PromptId, Prompt) {
    let corpora = Corpora::shipped();
    let passages = match mode {
        Mode::Zh => &corpora.zh,
        _ => &corpora.quotes,
    };
    let found: &Passage = passages
        .passages()
        .iter()
        .find(|p| p.text.as_str().chars().count() >= chars)
        .expect("a passage that long");
    let id = PromptId::for_game(mode, Seed::new(1).unwrap(), Some(&found.id));
    (id, found.text.clone())
}

/// Types `prompt` one correct key at a time, `intervals` apart.
fn keyed(mode: Mode, prompt: &Prompt, intervals: &[u64]) -> Session {
    let chars: Vec<char> = prompt.as_str().chars().collect();
    assert_eq!(intervals.len() + 1, chars.len());
    let mut session = Session::new(mode, prompt);
    let mut at = 1_000;
    for (i, c) in chars.iter().enumerate() {
        if i > 0 {
            at += intervals[i - 1];
        }
        session.commit(&c.to_string(), at);
    }
    session
}

/// Commits `prompt` word by word (each with the space after it), `intervals` apart.
fn word_by_word(prompt: &Prompt, intervals: impl Fn(usize, &str) -> u64) -> Session {
    let mut session = Session::new(Mode::Words, prompt);
    let mut at = 1_000;
    for (i, word) in prompt.as_str().split_inclusive(' ').enumerate() {
        if i > 0 {
            at += intervals(i, word);
        }
        session.commit(word, at);
    }
    session
}

/// An IME composition: when it starts, how long it lasts, the keys it claims, what it
/// commits.
struct Composition {
    start: u64,
    lasting: u64,
    keys: u32,
    text: String,
}

/// Types a `zh` prompt as `compositions`.
fn composed(prompt: &Prompt, compositions: &[Composition]) -> Session {
    let mut session = Session::new(Mode::Zh, prompt);
    for c in compositions {
        session.composition_start(c.start);
        for _ in 0..c.keys {
            session.composition_update("x");
        }
        session.composition_end(&c.text, c.start + c.lasting);
    }
    assert!(session.is_finished());
    session
}

/// `prompt` in phrases of `chars` 字 (the last may be shorter), each claiming `keys`,
/// composed within `composing_ms` in all, a human pause apart.
fn phrases(prompt: &Prompt, chars: usize, keys: u32, composing_ms: u64) -> Vec<Composition> {
    let text: Vec<char> = prompt.as_str().chars().collect();
    let texts: Vec<String> = text.chunks(chars).map(|c| c.iter().collect()).collect();
    let lasting = human(composing_ms, texts.len());
    let pauses = human(700 * texts.len() as u64, texts.len());
    let mut start = 1_000;
    texts
        .into_iter()
        .zip(lasting.iter().zip(&pauses))
        .map(|(text, (&lasting, &pause))| {
            let composition = Composition {
                start,
                lasting,
                keys,
                text,
            };
            start += lasting + pause;
            composition
        })
        .collect()
}

struct Forger {
    server: TestServer,
}

/// What became of a forged result.
#[derive(Debug, PartialEq)]
struct Outcome {
    held: bool,
    /// The review rules that held it, comma-separated, as stored.
    holds: String,
    /// On either public board (all-time or this week's).
    public: bool,
}

impl Outcome {
    fn held(holds: &str) -> Outcome {
        Outcome {
            held: true,
            holds: holds.to_owned(),
            public: false,
        }
    }

    fn public() -> Outcome {
        Outcome {
            held: false,
            holds: String::new(),
            public: true,
        }
    }
}

impl Forger {
    async fn start() -> Forger {
        let options = Options {
            review: "words=100".parse().unwrap(),
            ..Options::default()
        };
        Forger {
            server: TestServer::start(options).await,
        }
    }

    fn body(&self, mode: Mode, prompt: PromptId, session: &Session) -> Value {
        let stats = session.result().expect("a finished game");
        let played_at = self.server.clock.now_ms() - 60_000;
        serde_json::to_value(ScoreSubmission {
            score_id: Uuid::new_v4(),
            mode,
            week: week_of(played_at),
            value: score::value(mode, &stats),
            played_at: played_at as u64,
            stats,
            prompt: Some(prompt),
            input: Some(session.input_log()),
        })
        .unwrap()
    }

    /// Sends the game from a fresh save and says what became of it.
    async fn send(&self, mode: Mode, prompt: &PromptId, session: Session) -> Outcome {
        let server = &self.server;
        let save = server.create_save().await;
        let ack = submit(
            server,
            save.token,
            &self.body(mode, prompt.clone(), &session),
        )
        .await;
        let holds = rusqlite::Connection::open(server.sqlite_path())
            .unwrap()
            .query_row(
                "SELECT holds FROM results ORDER BY rowid DESC LIMIT 1",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let mut public = false;
        for board in ["alltime", "weekly"] {
            let query = format!("mode={mode}&board={board}");
            public |= leaderboard(server, &query, Some(save.token))
                .await
                .me
                .is_some();
        }
        Outcome {
            held: ack.held,
            holds,
            public,
        }
    }

    /// Sends the game and expects it refused with `code`, then on no board.
    async fn refused(&self, mode: Mode, prompt: &PromptId, session: &Session, code: &str) {
        let server = &self.server;
        let save = server.create_save().await;
        let body = self.body(mode, prompt.clone(), session);
        let response = server
            .send(with_token(post_json("/api/scores", &body), save.token))
            .await;
        assert_error(response, 422, code).await;
        for board in ["alltime", "weekly"] {
            let query = format!("mode={mode}&board={board}");
            assert!(
                leaderboard(server, &query, Some(save.token))
                    .await
                    .me
                    .is_none()
            );
        }
    }
}

#[tokio::test]
async fn a_speed_at_the_threshold_is_held() {
    let forger = Forger::start().await;
    let (id, prompt) = words_prompt(1);
    let chars = prompt.as_str().chars().count();
    // All correct: 1 200 000 × characters / ms is the value, so 120 ms a character is
    // exactly 100 WPM, the threshold this server holds `words` at.
    let at = |total| keyed(Mode::Words, &prompt, &human(total, chars - 1));
    let exact = at(120 * chars as u64);
    assert_eq!(score::value(Mode::Words, &exact.result().unwrap()), 10_000);
    let under = (120 * chars as u64..)
        .map(at)
        .find(|s| score::value(Mode::Words, &s.result().unwrap()) == 9_999)
        .unwrap();
    let send = |session| forger.send(Mode::Words, &id, session);
    assert_eq!(send(exact).await, Outcome::held("speed"));
    assert_eq!(send(under).await, Outcome::public());
}

#[tokio::test]
async fn twenty_one_keys_in_600_ms_are_held() {
    let forger = Forger::start().await;
    let (id, prompt) = passage(Mode::Quote, 100);
    let chars = prompt.as_str().chars().count();
    let burst = |last| {
        let mut intervals = human(200 * (chars as u64 - 1), chars - 1);
        intervals.splice(40..60, std::iter::repeat_n(30, 20));
        intervals[59] = last;
        keyed(Mode::Quote, &prompt, &intervals)
    };
    let send = |session| forger.send(Mode::Quote, &id, session);
    assert_eq!(send(burst(30)).await, Outcome::held("burst"));
    assert_eq!(send(burst(31)).await, Outcome::public());
}

#[tokio::test]
async fn a_key_metronome_at_the_bound_is_held() {
    let forger = Forger::start().await;
    let (id, prompt) = passage(Mode::Quote, 100);
    let chars = prompt.as_str().chars().count();
    // Alternating a and b ms: a coefficient of variation of (a − b) / (a + b).
    let swing = |a, b| {
        let intervals: Vec<u64> = (0..chars - 1).map(|i| [a, b][i % 2]).collect();
        keyed(Mode::Quote, &prompt, &intervals)
    };
    let send = |session| forger.send(Mode::Quote, &id, session);
    assert_eq!(send(swing(115, 85)).await, Outcome::held("regular"));
    assert_eq!(send(swing(116, 84)).await, Outcome::public());
}

#[tokio::test]
async fn a_word_per_tick_is_held() {
    let forger = Forger::start().await;
    let (id, prompt) = words_prompt(2);
    let send = |session| forger.send(Mode::Words, &id, session);
    // A whole word every second, and a wait in proportion to each word.
    let tick = word_by_word(&prompt, |_, _| 1_000);
    assert_eq!(send(tick).await, Outcome::held("regular"));
    let paced = word_by_word(&prompt, |_, word| 180 * word.chars().count() as u64);
    assert_eq!(send(paced).await, Outcome::held("regular"));
    // At the commit bound, 0.05, and just over it.
    let swing = |a: u64, b: u64| word_by_word(&prompt, move |i, _| [a, b][i % 2]);
    assert_eq!(send(swing(1_050, 950)).await, Outcome::held("regular"));
    assert_eq!(send(swing(1_051, 949)).await, Outcome::public());
}

#[tokio::test]
async fn a_zh_phrase_per_tick_is_held() {
    let forger = Forger::start().await;
    let (id, prompt) = passage(Mode::Zh, 100);
    let send = |session| forger.send(Mode::Zh, &id, session);
    // Two 字 of four keys every 800 ms, each composed in a human 300 ms or so.
    let mut ticks = phrases(&prompt, 2, 4, 300 * 50);
    for (i, c) in ticks.iter_mut().enumerate() {
        c.start = 1_000 + 800 * i as u64 - c.lasting;
    }
    assert_eq!(
        send(composed(&prompt, &ticks)).await,
        Outcome::held("regular")
    );
    let person = phrases(&prompt, 2, 4, 300 * 50);
    assert_eq!(send(composed(&prompt, &person)).await, Outcome::public());
}

#[tokio::test]
async fn zh_without_keys_is_refused_or_held() {
    let forger = Forger::start().await;
    let (id, prompt) = passage(Mode::Zh, 100);
    let send = |session| forger.send(Mode::Zh, &id, session);
    // The whole passage in one composition, with no keys or with plenty.
    for keys in [0, 400] {
        let whole = composed(
            &prompt,
            &[Composition {
                start: 1_000,
                lasting: 60_000,
                keys,
                text: prompt.as_str().to_owned(),
            }],
        );
        forger
            .refused(Mode::Zh, &id, &whole, "COMMIT_TOO_LONG")
            .await;
    }
    // Phrases that claim no keys, at a person's pace.
    let keyless = phrases(&prompt, 2, 0, 300 * 50);
    assert_eq!(
        send(composed(&prompt, &keyless)).await,
        Outcome::held("ime-keys")
    );
    // A long 词 of shape codes: eight 字 in four keys goes public, nine are held.
    let long_word = |chars| {
        let word = Composition {
            start: 100,
            lasting: 600,
            keys: 4,
            text: prompt.as_str().chars().take(chars).collect(),
        };
        let rest: String = prompt.as_str().chars().skip(chars).collect();
        let rest = phrases(&Prompt::new(&rest).unwrap(), 2, 4, 300 * 50);
        let mut all = vec![word];
        all.extend(rest.into_iter().map(|c| Composition {
            start: c.start + 1_000,
            ..c
        }));
        composed(&prompt, &all)
    };
    assert_eq!(send(long_word(8)).await, Outcome::public());
    assert_eq!(send(long_word(9)).await, Outcome::held("ime-keys"));
}

#[tokio::test]
async fn ime_speeds_at_the_threshold_are_held() {
    let forger = Forger::start().await;
    let (id, prompt) = passage(Mode::Zh, 100);
    let chars = prompt.as_str().chars().count() as u64;
    let send = |session| forger.send(Mode::Zh, &id, session);
    // 15 字 a second of composing: two 字 on three keys (22.5 keys a second).
    let zi_ms = chars * 1_000 / 15;
    let zi = |ms| composed(&prompt, &phrases(&prompt, 2, 3, ms));
    assert_eq!(send(zi(zi_ms)).await, Outcome::held("ime-speed"));
    assert_eq!(send(zi(zi_ms + 1)).await, Outcome::public());
    // 25 keys a second: two 字 on four keys (12.5 字 a second).
    let phrases_count = chars.div_ceil(2);
    let key_ms = 4 * phrases_count * 1_000 / 25;
    let keys = |ms| composed(&prompt, &phrases(&prompt, 2, 4, ms));
    assert_eq!(send(keys(key_ms)).await, Outcome::held("ime-speed"));
    assert_eq!(send(keys(key_ms + 1)).await, Outcome::public());
}

#[tokio::test]
async fn a_log_far_larger_than_its_prompt_is_refused() {
    let forger = Forger::start().await;
    let (id, prompt) = words_prompt(3);
    let max = max_log_bytes(Mode::Words, &prompt);
    // A wrong key and its Backspace, again and again, then the game: three bytes a
    // pair, until the log passes its bound.
    let mut session = Session::new(Mode::Words, &prompt);
    let mut at = 1_000;
    while session.input_log().as_bytes().len() <= max {
        session.commit("#", at);
        session.backspace(at + 5);
        at += 10;
    }
    for c in prompt.as_str().chars() {
        at += 150;
        session.commit(&c.to_string(), at);
    }
    forger
        .refused(Mode::Words, &id, &session, "INPUT_LOG_TOO_LARGE")
        .await;
}
