//! Prints the size of the input log and of the whole score body for typical games:
//! `cargo run -p keydo-core --example log_sizes` (numbers in docs/replay.md).

use keydo_core::api::MAX_BODY_BYTES;
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Mode, Seed};
use uuid::Uuid;

fn main() {
    let corpora = Corpora::shipped();
    println!("game                        chars  log bytes  base64  body bytes  % of cap");
    for (name, mode, wpm) in [
        ("time 60 s at 120 WPM", Mode::Time, 120),
        ("time 60 s at 250 WPM", Mode::Time, 250),
        ("words at 120 WPM", Mode::Words, 120),
        ("quote at 120 WPM", Mode::Quote, 120),
        ("zh passage (IME, 2 字/commit)", Mode::Zh, 100),
        ("zh passage (1 字/commit)", Mode::Zh, 0),
    ] {
        let mut typist = Typist::steady_human(wpm.max(100));
        if wpm == 0 {
            typist.zh_chars_per_commit = 1;
        }
        // The longest passage is the worst case for passage modes.
        let sizes = (0..64)
            .map(|seed| {
                let played = play(corpora, mode, Seed::new(seed).unwrap(), &typist);
                let submission = played.submission(Uuid::nil(), 1_796_097_600_000);
                let log = submission.input.clone().expect("a log");
                let body = serde_json::to_string(&submission).expect("JSON");
                let chars = submission.stats.correct_chars + submission.stats.errors;
                (
                    body.len(),
                    chars,
                    log.as_bytes().len(),
                    log.to_base64().len(),
                )
            })
            .max()
            .expect("games");
        let (body, chars, raw, base64) = sizes;
        println!(
            "{name:<28} {chars:>5} {raw:>10} {base64:>7} {body:>11} {:>8.1}",
            body as f64 * 100.0 / MAX_BODY_BYTES as f64
        );
    }
}
