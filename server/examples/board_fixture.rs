//! Loads a seeded board fixture (keydo_server::store::BoardFixture) and reads it back
//! for `scripts/bench-boards.mjs` (docs/operations.md, "Ranks at a million"):
//!
//! * `load`: writes the players and their board rows into an empty database (COPY on
//!   PostgreSQL), and prints how long it took;
//! * `sample`: `count` players spread evenly over the fixture, with their bearer token
//!   and their rank on the mode's boards counted row by row (to check the served ones);
//! * `explain`: the rank's plan for the players at the given places of the mode's
//!   all-time board.
//!
//! `cargo run --release -p keydo-server --example board_fixture -- <load|sample|explain> --database <postgres://…|file.sqlite3> [options]`

use clap::{Parser, Subcommand};
use keydo_core::Mode;
use keydo_server::store::{Board, BoardFixture, Location, Store, StoreOptions};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use uuid::Uuid;

#[derive(Parser)]
struct Args {
    #[command(subcommand)]
    command: Command,
    /// A PostgreSQL URL, or the path of a SQLite file.
    #[arg(long, global = true, default_value = "keydo.sqlite3")]
    database: String,
    #[arg(long, global = true, default_value_t = 1_000_000)]
    players: u32,
    #[arg(long, global = true, default_value_t = 1)]
    seed: u64,
    /// The week the fixture ends in: its all-time board's weekly neighbour.
    #[arg(long, global = true, default_value_t = 2_920)]
    last_week: i64,
    #[arg(long, global = true, default_value_t = 12)]
    weeks: i64,
    /// The mode whose boards `sample` and `explain` read.
    #[arg(long, global = true, default_value = "time", value_parser = parse_mode)]
    mode: Mode,
}

fn parse_mode(id: &str) -> Result<Mode, String> {
    id.parse().map_err(|_| format!("no mode {id:?}"))
}

#[derive(Subcommand)]
enum Command {
    Load,
    Sample {
        #[arg(long, default_value_t = 1_000)]
        count: u32,
    },
    Explain {
        /// Places on the all-time board (1 is the top; past its end, its last).
        places: Vec<i64>,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let location = if args.database.starts_with("postgres") {
        Location::Postgres(args.database.clone())
    } else {
        Location::Sqlite(PathBuf::from(&args.database))
    };
    // Counting ten million rows again takes longer than a request's statement may.
    let options = StoreOptions {
        database_timeout: Duration::from_secs(3_600),
        ..StoreOptions::default()
    };
    let store =
        tokio::task::spawn_blocking(move || Store::open_with(&location, &options)).await??;
    let fixture = BoardFixture {
        players: args.players,
        seed: args.seed,
        last_week: args.last_week,
        weeks: args.weeks,
    };
    let (mode, week) = (args.mode, Board::Week(args.last_week));
    match args.command {
        Command::Load => {
            let started = Instant::now();
            let games = store.load_board_fixture(fixture).await?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{}",
                json!({ "players": fixture.players, "games": games, "seconds": seconds })
            );
        }
        Command::Sample { count } => {
            let mut sampled = Vec::new();
            let mut counting = Vec::new();
            for k in 0..count {
                let n =
                    u32::try_from(u64::from(k) * u64::from(fixture.players) / u64::from(count))?;
                let (player_id, token) = fixture.identity(n);
                let started = Instant::now();
                let alltime = store
                    .rank_by_full_count(Board::AllTime, mode, player_id)
                    .await?;
                counting.push(started.elapsed().as_secs_f64() * 1_000.0);
                let weekly = store.rank_by_full_count(week, mode, player_id).await?;
                sampled.push(json!({ "token": token, "alltime": alltime, "weekly": weekly }));
            }
            // What a rank cost when it was a count of the rows above (all time).
            counting.sort_by(f64::total_cmp);
            let at =
                |q: f64| counting[((counting.len() as f64 * q) as usize).min(counting.len() - 1)];
            eprintln!(
                "a rank counted row by row (all time): p50 {:.1} ms, p99 {:.1} ms",
                at(0.5),
                at(0.99)
            );
            println!("{}", serde_json::Value::Array(sampled));
        }
        Command::Explain { places } => {
            let deepest = places.iter().copied().max().unwrap_or(1);
            let (board, _) = store
                .leaderboard(Board::AllTime, mode, deepest, None)
                .await?;
            for place in places {
                // A place past the board's end reads as its last one.
                let Some((place, entry)) = usize::try_from(place - 1)
                    .ok()
                    .map(|at| at.min(board.len().saturating_sub(1)))
                    .and_then(|at| Some((at + 1, board.get(at)?)))
                else {
                    continue;
                };
                let player_id = Uuid::try_parse(&entry.player_id)?;
                println!("place {place}:");
                for line in store.explain_rank(Board::AllTime, mode, player_id).await? {
                    println!("    {line}");
                }
            }
        }
    }
    Ok(())
}
