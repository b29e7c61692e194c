//! Writes the bodies `scripts/bench-server.sh` and `scripts/bench-deploy.mjs` post: real `words` games (a simulated
//! person at 80–140 WPM, one fixed mistake every 40 keys, each game with its own
//! rhythm), `games` distinct seeds per save, as a Lua table for wrk.
//!
//! `cargo run --release -p keydo-server --example verified_bodies -- <tokens> <games> <played-at-ms> <out.lua>`

use keydo_core::game::corpora::Corpora;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Mode, Seed};
use std::fmt::Write as _;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [tokens, games, played_at, out] = &args[..] else {
        anyhow::bail!(
            "usage: verified_bodies <tokens-file> <games-per-save> <played-at-ms> <out.lua>"
        );
    };
    let games: u64 = games.parse()?;
    let played_at: u64 = played_at.parse()?;
    let corpora = Corpora::shipped();
    let mut lua = String::from("bodies = {\n");
    for (n, token) in std::fs::read_to_string(tokens)?.lines().enumerate() {
        for game in 0..games {
            let wpm = 80 + (n as u32 * 7 + game as u32 * 13) % 60;
            // A rhythm of each game's own: the server spends a log once (docs/replay.md).
            let typist = Typist {
                seed: n as u64 * games + game,
                ..Typist::steady_human(wpm)
            };
            let played = play(corpora, Mode::Words, Seed::new(game + 1).unwrap(), &typist);
            let body = serde_json::to_string(&played.submission(uuid::Uuid::new_v4(), played_at))?;
            writeln!(lua, "  {{ token = \"{token}\", body = [[{body}]] }},")?;
        }
    }
    lua.push_str("}\n");
    std::fs::write(out, lua)?;
    Ok(())
}
