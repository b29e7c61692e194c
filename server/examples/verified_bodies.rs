//! Writes the bodies `scripts/bench-server.sh` and `scripts/bench-deploy.mjs` post, as a
//! Lua table for wrk: `games` real games per save, each typed by a simulated person
//! with a rhythm of its own (80–140 WPM, one fixed mistake every 40 keys), one game of
//! every save before the next game of any. The kind of game:
//!
//! * `words`: the built-in `words` test, one seed per game;
//! * `zh`: a built-in Chinese passage (`zh`), one seed per game;
//! * `text`: a pasted Chinese text of the longest kind a player may load (3,000 字),
//!   a different one per game, so every game also stores its text (docs/genda.md).
//!
//! `cargo run --release -p keydo-server --example verified_bodies -- <words|zh|text> <tokens> <games> <played-at-ms> <out.lua>`

use keydo_core::game::corpora::Corpora;
use keydo_core::game::mode::Language;
use keydo_core::verify::simulate::{Played, Typist, longest_text, play, play_text};
use keydo_core::{Mode, Seed};
use std::fmt::Write as _;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, tokens, games, played_at, out] = &args[..] else {
        anyhow::bail!(
            "usage: verified_bodies <words|zh|text> <tokens-file> <games-per-save> <played-at-ms> <out.lua>"
        );
    };
    let games: u64 = games.parse()?;
    let played_at: u64 = played_at.parse()?;
    let corpora = Corpora::shipped();
    let game_of = |index: u64, typist: &Typist| -> anyhow::Result<Played> {
        let seed = Seed::new(index % games + 1).expect("seeds start at 1");
        Ok(match kind.as_str() {
            "words" => play(corpora, Mode::Words, seed, typist),
            "zh" => play(corpora, Mode::Zh, seed, typist),
            // Texts differ by where in the passages they start.
            "text" => play_text(
                &longest_text(corpora, Language::Chinese, index as usize * 7),
                typist,
            ),
            other => anyhow::bail!("no game kind {other:?}: words, zh or text"),
        })
    };
    let tokens = std::fs::read_to_string(tokens)?;
    let mut lua = String::from("bodies = {\n");
    // Game by game across the saves, so that neighbouring bodies (which wrk's
    // connections send at once) belong to different players: a player sends one game
    // at a time, and the server keeps one player's games in order (a second waits
    // for the first's commit on PostgreSQL).
    for game in 0..games {
        for (n, token) in tokens.lines().enumerate() {
            let wpm = 80 + (n as u32 * 7 + game as u32 * 13) % 60;
            let index = n as u64 * games + game;
            // A rhythm of each game's own, in this file and in any written at another
            // time: the server spends a log once (docs/replay.md).
            let typist = Typist {
                seed: index ^ played_at.rotate_left(32),
                ..Typist::steady_human(wpm)
            };
            let played = game_of(index, &typist)?;
            let body = serde_json::to_string(&played.submission(uuid::Uuid::new_v4(), played_at))?;
            writeln!(lua, "  {{ token = \"{token}\", body = [[{body}]] }},")?;
        }
    }
    lua.push_str("}\n");
    std::fs::write(out, lua)?;
    Ok(())
}
