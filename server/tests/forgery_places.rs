//! Places that matter wait for review (docs/replay.md, "Places that matter" and "The
//! review queue"): a result that would take a top place, leap over its player's best or
//! come from a save with too little verified typing is held, at and around each
//! threshold, and never reaches a public board; a flood of held results stays within
//! its bound. Over real HTTP, on SQLite and, through `scripts/with-postgres.sh`, on
//! PostgreSQL.
//!
//! The games are real logs of a person's uneven rhythm whose duration, and so whose
//! value, the test picks to the millisecond: a forger can do the same, which is why
//! these results wait for a person to look at them.

mod common;

use common::{Options, TestServer, limits};
use keydo_core::api::week::week_of;
use keydo_core::game::corpora::Corpora;
use keydo_core::game::score::{self, Stats};
use keydo_core::{Mode, PromptId, Seed, Session};
use keydo_server::capacity;
use keydo_server::clock::Clock;
use keydo_server::metrics::metrics;
use keydo_server::settings::Alerts;
use keydo_server::store::{Approval, Gates, Listing, Location};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::time::Instant;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use uuid::Uuid;

const WEEK_MS: i64 = 7 * 86_400_000;

/// The API over a real connection, one request per connection.
struct Http(SocketAddr);

impl Http {
    /// Sends a request; answers the status and the JSON body (`null` if none).
    async fn request(
        &self,
        method: &str,
        path: &str,
        token: Option<Uuid>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.0,
            body.len()
        );
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        if let Some(token) = token {
            head.push_str(&format!("Authorization: Bearer {token}\r\n"));
        }
        head.push_str("\r\n");
        let mut stream = tokio::net::TcpStream::connect(self.0).await.unwrap();
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        let answer = String::from_utf8(answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").expect("a head and a body");
        let status = head[9..12].parse().unwrap();
        (status, serde_json::from_str(body).unwrap_or(Value::Null))
    }

    async fn create_save(&self) -> Save {
        let (status, save) = self
            .request("POST", "/api/saves", None, Some(&json!({})))
            .await;
        assert_eq!(status, 201, "{save}");
        Save {
            player_id: save["playerId"].as_str().unwrap().parse().unwrap(),
            token: save["token"].as_str().unwrap().parse().unwrap(),
            name: save["profile"]["displayName"].as_str().unwrap().to_owned(),
        }
    }

    /// Sends a game; answers the status and the body.
    async fn send(&self, save: &Save, game: &Value) -> (u16, Value) {
        self.request("POST", "/api/scores", Some(save.token), Some(game))
            .await
    }

    /// Sends a game the server must accept; answers whether it was held.
    async fn held(&self, save: &Save, game: &Value) -> bool {
        let (status, ack) = self.send(save, game).await;
        assert_eq!(status, 200, "{ack}");
        ack["held"].as_bool().unwrap()
    }

    /// A board's (name, value) lines, best first.
    async fn board(&self, board: &str) -> Vec<(String, i64)> {
        let (status, shown) = self
            .request(
                "GET",
                &format!("/api/leaderboard?mode=words&board={board}"),
                None,
                None,
            )
            .await;
        assert_eq!(status, 200, "{shown}");
        shown["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|entry| {
                (
                    entry["displayName"].as_str().unwrap().to_owned(),
                    entry["value"].as_i64().unwrap(),
                )
            })
            .collect()
    }
}

struct Save {
    player_id: Uuid,
    token: Uuid,
    name: String,
}

/// A person's uneven rhythm: intervals in proportion to these.
const PERSON: &[u64] = &[95, 140, 60, 220, 80, 110, 45, 170, 100, 70];
/// A script's fixed delay.
const METRONOME: &[u64] = &[100];

/// A `words` game on `seed`, every character typed right in a person's uneven rhythm,
/// lasting exactly `duration_ms`, played (ended) at `played_at`.
fn game_lasting(seed: u64, duration_ms: u64, played_at: i64) -> Value {
    game_in_rhythm(PERSON, seed, duration_ms, played_at)
}

/// [`game_lasting`] with the intervals in proportion to `rhythm`, repeated.
fn game_in_rhythm(rhythm: &[u64], seed: u64, duration_ms: u64, played_at: i64) -> Value {
    let id = PromptId::for_game(Mode::Words, Seed::new(seed).unwrap(), None);
    let prompt = Corpora::shipped().prompt(Mode::Words, &id).unwrap();
    let chars: Vec<char> = prompt.as_str().chars().collect();
    let raw: Vec<u64> = rhythm
        .iter()
        .copied()
        .cycle()
        .take(chars.len() - 1)
        .collect();
    let raw_total: u64 = raw.iter().sum();
    let mut intervals: Vec<u64> = raw.iter().map(|i| i * duration_ms / raw_total).collect();
    *intervals.last_mut().unwrap() += duration_ms - intervals.iter().sum::<u64>();
    let mut session = Session::new(Mode::Words, &prompt);
    let mut at = 1_000;
    session.commit(&chars[0].to_string(), at);
    for (c, interval) in chars[1..].iter().zip(intervals) {
        at += interval;
        session.commit(&c.to_string(), at);
    }
    let stats = session.result().expect("the game is finished");
    assert_eq!(stats.duration_ms, duration_ms);
    json!({
        "scoreId": Uuid::new_v4(), "mode": "words", "week": week_of(played_at),
        "value": score::value(Mode::Words, &stats), "playedAt": played_at,
        "stats": stats, "prompt": id, "input": session.input_log()
    })
}

/// A `words` game on `seed` worth exactly `value` (WPM × 100).
fn game_worth(seed: u64, value: i64, played_at: i64) -> Value {
    let probe: Stats =
        serde_json::from_value(game_lasting(seed, 40_000, played_at)["stats"].clone()).unwrap();
    let guess = u64::from(probe.correct_chars) * 1_200_000 / value as u64;
    let duration_ms = (guess - 5..=guess + 5)
        .find(|&duration_ms| {
            let stats = Stats {
                duration_ms,
                ..probe
            };
            score::value(Mode::Words, &stats) == value
        })
        .unwrap_or_else(|| panic!("no duration is worth {value} on seed {seed}"));
    let game = game_lasting(seed, duration_ms, played_at);
    assert_eq!(game["value"], value);
    game
}

fn score_id(game: &Value) -> Uuid {
    game["scoreId"].as_str().unwrap().parse().unwrap()
}

fn names(board: &[(String, i64)]) -> Vec<&str> {
    board.iter().map(|(name, _)| name.as_str()).collect()
}

/// The ids of the holds of a result waiting for review.
async fn holds_of(server: &TestServer, game: &Value) -> Vec<String> {
    let held = server
        .own_store()
        .await
        .list_results(Listing::Held, 1_000)
        .await
        .unwrap();
    let result = held
        .iter()
        .find(|result| result.score_id == score_id(game))
        .expect("the result waits for review");
    result.holds.split(',').map(str::to_owned).collect()
}

async fn approve(server: &TestServer, save: &Save, game: &Value) {
    let approval = server
        .own_store()
        .await
        .approve(save.player_id, score_id(game))
        .await
        .unwrap();
    assert!(matches!(approval, Approval::Approved(_)), "{approval:?}");
}

/// Only the gate a test is about, with the others off.
fn only(gates: Gates) -> Options {
    Options {
        gates,
        ..Options::default()
    }
}

fn top_places(text: &str) -> Gates {
    Gates {
        top_places: text.parse().unwrap(),
        ..Gates::off()
    }
}

#[tokio::test]
async fn a_result_that_would_take_a_top_place_waits_from_the_boundary_up() {
    for server in TestServer::on_every_database("top_places", only(top_places("words=3"))).await {
        let http = Http(server.listen().await);
        let now = server.clock.now_ms();
        // An empty board's first places wait too; approved, they make the top 3.
        let mut top = Vec::new();
        for value in [10_000, 9_500, 9_000] {
            let save = http.create_save().await;
            let game = game_worth(1, value, now);
            assert!(http.held(&save, &game).await, "{value} takes a top place");
            assert_eq!(holds_of(&server, &game).await, ["top-place"]);
            approve(&server, &save, &game).await;
            top.push(save);
        }
        let top_names: Vec<&str> = top.iter().map(|save| save.name.as_str()).collect();
        assert_eq!(names(&http.board("alltime").await), top_names);

        // Equal to the 3rd place: a tie counts for it (>=), so it waits.
        let tie = http.create_save().await;
        assert!(http.held(&tie, &game_worth(1, 9_000, now)).await);
        // One below: 4th at best, public at once, on both boards.
        let below = http.create_save().await;
        assert!(!http.held(&below, &game_worth(1, 8_999, now)).await);
        for board in ["alltime", "weekly"] {
            let shown = http.board(board).await;
            assert_eq!(shown.len(), 4, "{board}");
            assert_eq!(shown[3], (below.name.clone(), 8_999));
            assert!(!names(&shown).contains(&tie.name.as_str()), "{board}");
        }

        // A player in the top who improves takes a top place again: it waits, and their
        // public line stays as it was.
        assert!(http.held(&top[2], &game_worth(2, 9_600, now)).await);
        assert_eq!(http.board("alltime").await[2], (top[2].name.clone(), 9_000));

        // Next week the weekly board is empty: a slow game would top it, so it waits,
        // though it is far from the all-time top.
        server.clock.set(now + WEEK_MS);
        let next_week = http.create_save().await;
        assert!(
            http.held(&next_week, &game_worth(3, 4_000, now + WEEK_MS))
                .await
        );
        assert!(http.board("weekly").await.is_empty());
        assert!(!names(&http.board("alltime").await).contains(&next_week.name.as_str()));
        server.assert_rank_counts_exact().await;
    }
}

#[tokio::test]
async fn a_leap_over_the_players_best_waits_from_the_margin_up() {
    let gates = Gates {
        leap_percent: 25,
        ..Gates::off()
    };
    for server in TestServer::on_every_database("leap", only(gates)).await {
        let http = Http(server.listen().await);
        let now = server.clock.now_ms();
        let save = http.create_save().await;
        assert!(
            !http.held(&save, &game_worth(1, 8_000, now)).await,
            "no best yet"
        );
        // 8 000 × 1.25 = 10 000: at the margin it waits.
        let leap = game_worth(2, 10_000, now);
        assert!(http.held(&save, &leap).await);
        assert_eq!(holds_of(&server, &leap).await, ["leap"]);
        assert_eq!(http.board("alltime").await, [(save.name.clone(), 8_000)]);
        // One below the margin is public.
        assert!(!http.held(&save, &game_worth(3, 9_999, now)).await);
        assert_eq!(http.board("alltime").await, [(save.name.clone(), 9_999)]);
        // The margin follows the public best: 9 999 × 1.25 = 12 498.75.
        assert!(http.held(&save, &game_worth(4, 12_499, now)).await);
        assert!(!http.held(&save, &game_worth(5, 12_498, now)).await);
        assert_eq!(http.board("alltime").await, [(save.name.clone(), 12_498)]);
    }
}

fn min_typing() -> Gates {
    Gates {
        min_typing_ms: Gates::default().min_typing_ms,
        ..Gates::off()
    }
}

#[tokio::test]
async fn verified_typing_is_earned_no_faster_than_the_server_sees_time_pass() {
    assert_eq!(
        min_typing().min_typing_ms,
        300_000,
        "the documented default"
    );
    for server in TestServer::on_every_database("typing", only(min_typing())).await {
        let http = Http(server.listen().await);
        let created = server.clock.now_ms();
        let save = http.create_save().await;
        // Six minutes of games claimed as played offline, before the save existed,
        // all sent at once: the server has seen one second pass, so they earn one.
        for seed in 1..=6 {
            let game = game_lasting(seed, 60_000, created - 86_400_000 + seed as i64);
            assert!(http.held(&save, &game).await, "game {seed}");
        }
        server.clock.set(created + 1_000);
        let early = game_lasting(7, 60_000, created + 1_000);
        assert!(http.held(&save, &early).await);
        assert_eq!(holds_of(&server, &early).await, ["little-typing"]);
        // One millisecond short of five minutes since the save: still waits.
        server.clock.set(created + 299_999);
        assert!(
            http.held(&save, &game_lasting(8, 60_000, created + 299_999))
                .await
        );
        // Five minutes: the typing it sent is now believable, and it is public.
        server.clock.set(created + 300_000);
        assert!(
            !http
                .held(&save, &game_lasting(9, 60_000, created + 300_000))
                .await
        );
        assert_eq!(names(&http.board("alltime").await), [save.name.as_str()]);
    }
}

#[tokio::test]
async fn verified_typing_is_the_typing_time_when_time_is_not_short() {
    for server in TestServer::on_every_database("typing time", only(min_typing())).await {
        let http = Http(server.listen().await);
        let created = server.clock.now_ms();
        let save = http.create_save().await;
        let later = created + 86_400_000;
        server.clock.set(later);
        // 4 × 60 s + 59.999 s = 299.999 s of typing: every game so far, and the next, wait.
        for (seed, duration_ms) in [
            (1, 60_000),
            (2, 60_000),
            (3, 60_000),
            (4, 60_000),
            (5, 59_999),
        ] {
            assert!(
                http.held(&save, &game_lasting(seed, duration_ms, later))
                    .await
            );
        }
        assert!(http.held(&save, &game_lasting(6, 45_000, later)).await);
        assert!(http.board("alltime").await.is_empty());
        // Results stored before typing times were (migration V5) get theirs from their
        // stats: forgetting them all changes nothing.
        execute(&server, "UPDATE results SET typing_ms = NULL").await;
        // Now 344.999 s are behind it.
        assert!(!http.held(&save, &game_lasting(7, 45_000, later)).await);
        assert_eq!(names(&http.board("alltime").await), [save.name.as_str()]);
    }
}

#[tokio::test]
async fn a_scripts_typing_earns_nothing() {
    for server in TestServer::on_every_database("script typing", only(min_typing())).await {
        let http = Http(server.listen().await);
        let created = server.clock.now_ms();
        let save = http.create_save().await;
        let later = created + 86_400_000;
        server.clock.set(later);
        // Ten minutes of a fixed delay: held as `regular`, and no verified typing.
        for seed in 1..=10 {
            let game = game_in_rhythm(METRONOME, seed, 60_000, later);
            assert!(http.held(&save, &game).await);
        }
        let next = game_lasting(11, 60_000, later);
        assert!(http.held(&save, &next).await);
        assert_eq!(holds_of(&server, &next).await, ["little-typing"]);
        assert!(http.board("alltime").await.is_empty());
    }
}

/// Runs `statement` on the server's database, past the server.
async fn execute(server: &TestServer, statement: &'static str) {
    match server.location.clone() {
        Location::Sqlite(path) => {
            rusqlite::Connection::open(path)
                .unwrap()
                .execute(statement, [])
                .unwrap();
        }
        // The synchronous client runs its own runtime, so not on this (async) thread.
        Location::Postgres(url) => std::thread::spawn(move || {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            client.execute(statement, &[]).unwrap();
        })
        .join()
        .unwrap(),
    }
}

#[tokio::test]
async fn with_the_defaults_a_fresh_saves_result_waits_for_every_reason_that_applies() {
    for server in TestServer::on_every_database(
        "defaults",
        Options {
            gates: Gates::default(),
            ..Options::default()
        },
    )
    .await
    {
        let http = Http(server.listen().await);
        let now = server.clock.now_ms();
        let save = http.create_save().await;
        let game = game_worth(1, 9_000, now);
        assert!(http.held(&save, &game).await);
        assert_eq!(
            holds_of(&server, &game).await,
            ["top-place", "little-typing"]
        );
        assert!(http.board("alltime").await.is_empty());
        assert!(http.board("weekly").await.is_empty());
    }
}

#[tokio::test]
async fn a_save_keeps_its_best_three_held_results_per_mode_waiting() {
    for server in TestServer::on_every_database(
        "pending",
        Options {
            gates: Gates::default(),
            ..Options::default()
        },
    )
    .await
    {
        let http = Http(server.listen().await);
        let now = server.clock.now_ms();
        let save = http.create_save().await;
        let games: Vec<Value> = [9_000, 9_100, 8_000, 9_500, 8_500]
            .into_iter()
            .zip(1..)
            .map(|(value, seed)| game_worth(seed, value, now))
            .collect();
        for game in &games {
            assert!(
                http.held(&save, game).await,
                "each is held, the worse ones too"
            );
        }
        let waiting: Vec<i64> = server
            .own_store()
            .await
            .list_results(Listing::Held, 100)
            .await
            .unwrap()
            .iter()
            .map(|result| result.value)
            .collect();
        let mut sorted = waiting.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [9_000, 9_100, 9_500], "the best three wait");
        assert_eq!(
            server.count_rows("results WHERE input IS NOT NULL").await,
            3,
            "only the waiting keep their logs"
        );
        assert_eq!(
            server.count_rows("results WHERE state = 'displaced'").await,
            2
        );
        // A displaced result cannot be approved; a waiting one can.
        let displaced = server
            .own_store()
            .await
            .approve(save.player_id, score_id(&games[2]))
            .await
            .unwrap();
        assert_eq!(displaced, Approval::NotHeld);
        approve(&server, &save, &games[3]).await;
        assert_eq!(http.board("alltime").await, [(save.name.clone(), 9_500)]);
    }
}

/// One address floods held results at the server's default limits (docs/operations.md):
/// most are refused 429 and stored nowhere; what is stored stays within the bound the
/// limits and the pending cap give. Prints the growth as bytes per minute per address.
#[tokio::test]
async fn a_flood_of_held_results_stays_within_its_bound() {
    let defaults = Options {
        gates: Gates::default(),
        rate_limits: {
            let mut limits = limits(300, 60, 2);
            limits.held_per_save_per_minute = NonZeroU32::new(5).unwrap();
            limits.held_per_ip_per_minute = NonZeroU32::new(10).unwrap();
            limits
        },
        ..Options::default()
    };
    for server in TestServer::on_every_database("flood", defaults).await {
        let http = Http(server.listen().await);
        let now = server.clock.now_ms();
        let store = server.own_store().await;
        let before = store.capacity().await.unwrap();
        let started = Instant::now();
        let (mut stored, mut refused) = (0, 0);
        let saves = [http.create_save().await, http.create_save().await];
        for (i, save) in saves.iter().enumerate() {
            for seed in 1..=30 {
                let game = game_worth(seed, 9_000 + seed as i64 + 100 * i as i64, now);
                match http.send(save, &game).await {
                    (200, ack) => {
                        assert_eq!(ack["held"], true, "{ack}");
                        stored += 1;
                    }
                    (429, error) => {
                        assert_eq!(error["error"]["code"], "RATE_LIMITED", "{error}");
                        refused += 1;
                    }
                    (status, body) => panic!("{status} {body}"),
                }
            }
        }
        let minutes = started.elapsed().as_secs_f64() / 60.0;
        // The address's budget: a burst of 10, then 10 a minute.
        assert!(
            f64::from(stored) <= 10.0 + 10.0 * minutes + 1.0,
            "{stored} stored in {minutes:.2} min"
        );
        assert!(refused >= 60 - stored);
        assert_eq!(server.count_rows("results").await, i64::from(stored));
        assert!(server.count_rows("results WHERE state = 'held'").await <= 2 * 3);
        assert!(http.board("alltime").await.is_empty());

        let alerts = Alerts {
            held_results: 6,
            database_bytes: i64::MAX,
        };
        let after = capacity::refresh(&store, alerts).await.unwrap();
        assert!(after.held_results <= 6);
        let metrics = metrics().encode();
        for line in [
            format!("keydo_review_queue_results {}", after.held_results),
            "keydo_review_queue_alert_results 6".to_owned(),
            format!("keydo_database_bytes {}", after.database_bytes),
        ] {
            assert!(metrics.contains(&line), "{line} in\n{metrics}");
        }
        let grown = after.database_bytes - before.database_bytes;
        let log_bytes = game_worth(1, 9_000, now)["input"].as_str().unwrap().len();
        let per_result = grown as f64 / f64::from(stored);
        eprintln!(
            "flood ({:?}): {stored} held stored, {refused} refused in {:.1} s; database \
             grew {grown} B ({per_result:.0} B per stored result, logs of {log_bytes} B); \
             at the default 10 held a minute per address: {:.0} B/min",
            server.location,
            minutes * 60.0,
            per_result * 10.0,
        );
        // Rows, indexes and their pages: far below one body limit per stored result.
        assert!(
            per_result < 100.0 * 1024.0,
            "{per_result} B per stored result"
        );
    }
}
