//! Forged replays (docs/replay.md, "A log is spent once"), over real HTTP: a log sent
//! again by another save, re-dated or under a new score id is refused `LOG_REUSED`,
//! while a resend of the same score id answers as its first receipt; save creation is
//! limited per IPv6 /56 and /48 too; and the operator's review page at `/admin`
//! refuses strangers, lists the held queue best first, grouped by player, and approves
//! onto the boards. Every scenario runs on SQLite and, through
//! `scripts/with-postgres.sh`, on PostgreSQL (without it the PostgreSQL runs print why
//! and pass vacuously, as in `postgres.rs`).

mod common;

use common::wire::{Answer, exchange};
use common::{Options, TestServer, limits, played_game, resubmitted, value_of, words_game};
use ipnet::IpNet;
use keydo_core::api::week::week_of;
use keydo_core::api::{Leaderboard, SaveCreated, ScoreAck};
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{InputLog, Mode, Seed};
use keydo_server::client::TrustedProxies;
use keydo_server::clock::Clock;
use keydo_server::settings::RateLimits;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use tokio::net::TcpStream;
use uuid::Uuid;

const DAY_MS: i64 = 86_400_000;
const OPERATOR_TOKEN: &str = "0123456789abcdef0123456789abcdef-operator";

/// A client of a listening server, one connection per request.
struct Http {
    address: SocketAddr,
}

impl Http {
    async fn send(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Answer {
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.address,
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        let mut stream = TcpStream::connect(self.address).await.unwrap();
        exchange(&mut stream, &request).await
    }

    async fn post_json(&self, path: &str, token: Option<Uuid>, body: &Value) -> Answer {
        let bearer = token.map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(bearer) = &bearer {
            headers.push(("Authorization", bearer));
        }
        self.send("POST", path, &headers, &body.to_string()).await
    }

    async fn create_save(&self) -> SaveCreated {
        let answer = self.post_json("/api/saves", None, &json!({})).await;
        assert_eq!(answer.status, 201, "{}", text(&answer));
        serde_json::from_slice(&answer.body).unwrap()
    }

    async fn submit(&self, token: Uuid, game: &Value) -> ScoreAck {
        let answer = self.post_json("/api/scores", Some(token), game).await;
        assert_eq!(answer.status, 200, "{}", text(&answer));
        serde_json::from_slice(&answer.body).unwrap()
    }

    async fn refused(&self, token: Uuid, game: &Value, code: &str) {
        let answer = self.post_json("/api/scores", Some(token), game).await;
        assert_eq!(answer.status, 422, "{}", text(&answer));
        let body: Value = serde_json::from_slice(&answer.body).unwrap();
        assert_eq!(body["error"]["code"], code, "{body}");
        assert!(body["error"]["message"].as_str().unwrap().ends_with('.'));
    }

    async fn board(&self, mode: &str, board: &str) -> Vec<i64> {
        let answer = self
            .send(
                "GET",
                &format!("/api/leaderboard?mode={mode}&board={board}"),
                &[],
                "",
            )
            .await;
        assert_eq!(answer.status, 200);
        let board: Leaderboard = serde_json::from_slice(&answer.body).unwrap();
        board.entries.iter().map(|entry| entry.value).collect()
    }
}

fn text(answer: &Answer) -> String {
    format!("{}{}", answer.head, String::from_utf8_lossy(&answer.body))
}

async fn servers(test: &str, options: Options) -> Vec<(TestServer, Http)> {
    let mut servers = Vec::new();
    for server in TestServer::on_every_database(test, options).await {
        let address = server.listen().await;
        servers.push((server, Http { address }));
    }
    servers
}

fn spending() -> Options {
    Options {
        logs_spent_once: true,
        ..Options::default()
    }
}

/// A `words` game on `seed` at about `wpm`, by a person whose rhythm is `rhythm`'s.
fn typed_by(rhythm: u64, seed: u64, wpm: u32, played_at: i64) -> Value {
    let typist = Typist {
        seed: rhythm,
        ..Typist::steady_human(wpm)
    };
    let played = play(
        Corpora::shipped(),
        Mode::Words,
        Seed::new(seed).unwrap(),
        &typist,
    );
    serde_json::to_value(played.submission(Uuid::new_v4(), played_at as u64)).unwrap()
}

/// `game` played at another time, with the week that goes with it.
fn redated(game: &Value, played_at: i64) -> Value {
    let mut moved = game.clone();
    moved["playedAt"] = json!(played_at);
    moved["week"] = json!(week_of(played_at));
    moved
}

#[tokio::test]
async fn a_log_is_spent_once_across_all_saves() {
    for (server, http) in servers("a_log_is_spent_once_across_all_saves", spending()).await {
        let now = server.clock.now_ms();
        let (first, second) = (http.create_save().await, http.create_save().await);

        // The same log from a second save: as it was, or under a new score id.
        let game = words_game(5, 80, now - 60_000);
        let ack = http.submit(first.token, &game).await;
        http.refused(second.token, &game, "LOG_REUSED").await;
        http.refused(second.token, &resubmitted(&game), "LOG_REUSED")
            .await;
        // Its own save under a new score id, or re-dated under one.
        http.refused(first.token, &resubmitted(&game), "LOG_REUSED")
            .await;
        http.refused(
            first.token,
            &resubmitted(&redated(&game, now - 120_000)),
            "LOG_REUSED",
        )
        .await;
        // The same score id from the same save is the first receipt, re-dated or not.
        assert_eq!(http.submit(first.token, &game).await, ack);
        assert_eq!(
            http.submit(first.token, &redated(&game, now - 120_000))
                .await,
            ack
        );
        assert_eq!(http.board("words", "alltime").await, [value_of(&game)]);

        // A passage typed last week, re-dated into this week under a new id, does not
        // reach this week's board, from any save.
        let last_week = now - 8 * DAY_MS;
        let third = {
            // A save old enough to have played it.
            server.clock.set(last_week);
            let save = http.create_save().await;
            server.clock.set(now);
            save
        };
        let passage = played_game(Mode::Quote, 2, 70, last_week);
        let old = http.submit(third.token, &passage).await;
        assert!(old.improved && !old.weekly_accepted, "{old:?}");
        for token in [third.token, first.token] {
            http.refused(token, &resubmitted(&redated(&passage, now)), "LOG_REUSED")
                .await;
        }
        assert!(http.board("quote", "weekly").await.is_empty());

        // A held result spends its log too.
        let fast = words_game(6, 280, now - 60_000);
        assert!(http.submit(first.token, &fast).await.held);
        http.refused(second.token, &resubmitted(&fast), "LOG_REUSED")
            .await;

        // One digest per accepted result; refusals spent nothing.
        assert_eq!(server.count_rows("log_digests").await, 3);
        assert_eq!(server.count_rows("results").await, 3);
    }
}

#[tokio::test]
async fn people_typing_the_same_prompt_alike_differ_in_their_times() {
    let test = "people_typing_the_same_prompt_alike_differ_in_their_times";
    for (server, http) in servers(test, spending()).await {
        let now = server.clock.now_ms();
        let (ann, bo) = (http.create_save().await, http.create_save().await);
        let ann_game = typed_by(1, 9, 90, now - 60_000);
        let bo_game = typed_by(2, 9, 90, now - 60_000);
        // The same edits (the same mistakes, fixed the same way), at other times.
        let edits = |game: &Value| {
            let log: InputLog = serde_json::from_value(game["input"].clone()).unwrap();
            let entries: Vec<_> = log.entries().map(Result::unwrap).collect();
            let edits: Vec<String> = entries.iter().map(|e| format!("{:?}", e.edit)).collect();
            let times: Vec<u64> = entries.iter().map(|e| e.at).collect();
            (edits, times)
        };
        let ((ann_edits, ann_times), (bo_edits, bo_times)) = (edits(&ann_game), edits(&bo_game));
        assert_eq!(ann_edits, bo_edits);
        assert_ne!(ann_times, bo_times);
        http.submit(ann.token, &ann_game).await;
        http.submit(bo.token, &bo_game).await;
        assert_eq!(http.board("words", "alltime").await.len(), 2);
        // A seed still counts once per player, whatever the log.
        http.refused(ann.token, &typed_by(3, 9, 95, now), "SEED_REUSED")
            .await;
        assert_eq!(server.count_rows("log_digests").await, 2);
    }
}

fn prefix_limits() -> RateLimits {
    let n = |n| NonZeroU32::new(n).unwrap();
    RateLimits {
        save_creations_per_minute: n(2),
        save_creations_per_56_per_minute: n(3),
        save_creations_per_48_per_minute: n(5),
        ..limits(10_000, 10_000, 2)
    }
}

#[tokio::test]
async fn save_creation_is_limited_per_ipv6_56_and_48() {
    let loopback: IpNet = "127.0.0.1/32".parse().unwrap();
    let options = Options {
        rate_limits: prefix_limits(),
        trusted_proxies: TrustedProxies::new(vec![loopback]),
        ..Options::default()
    };
    let (_server, http) = servers("save_creation_is_limited_per_ipv6_56_and_48", options)
        .await
        .remove(0);
    let create_from = async |client: &str| {
        http.send(
            "POST",
            "/api/saves",
            &[
                ("Content-Type", "application/json"),
                ("X-Forwarded-For", client),
            ],
            "{}",
        )
        .await
        .status
    };
    // One /56: two /64s within their own budgets, then the /56 has spent its 3.
    assert_eq!(create_from("2001:db8:1:100::1").await, 201);
    assert_eq!(create_from("2001:db8:1:100::2").await, 201);
    assert_eq!(create_from("2001:db8:1:100::3").await, 429, "the /64's 2");
    assert_eq!(create_from("2001:db8:1:101::1").await, 201);
    assert_eq!(create_from("2001:db8:1:102::1").await, 429, "the /56's 3");
    // Other /56s of the same /48 until the /48 has spent its 5.
    assert_eq!(create_from("2001:db8:1:200::1").await, 201);
    assert_eq!(create_from("2001:db8:1:300::1").await, 201);
    assert_eq!(create_from("2001:db8:1:400::1").await, 429, "the /48's 5");
    // Another /48, and IPv4, are untouched.
    assert_eq!(create_from("2001:db8:2:100::1").await, 201);
    assert_eq!(create_from("192.0.2.1").await, 201);
}

fn basic(password: &str) -> String {
    use base64::Engine;
    let credentials = base64::engine::general_purpose::STANDARD.encode(format!("op:{password}"));
    format!("Basic {credentials}")
}

/// The value of the first `name="form_token" value="…"` in a page.
fn form_token(page: &str) -> String {
    let at = page.find("name=\"form_token\" value=\"").expect("a form") + 25;
    page[at..at + 64].to_owned()
}

/// The `data-score` ids of the page's held rows, in order.
fn listed_scores(page: &str) -> Vec<String> {
    page.split("data-score=\"")
        .skip(1)
        .map(|rest| rest[..36].to_owned())
        .collect()
}

#[tokio::test]
async fn the_review_page_lists_the_queue_and_approves() {
    let options = Options {
        admin_token: Some(OPERATOR_TOKEN.into()),
        ..spending()
    };
    for (server, http) in servers("the_review_page_lists_the_queue_and_approves", options).await {
        let now = server.clock.now_ms();
        let auth = basic(OPERATOR_TOKEN);

        // Strangers get a challenge, never the page.
        let guess = basic("guess");
        for headers in [vec![], vec![("Authorization", guess.as_str())]] {
            let answer = http.send("GET", "/admin", &headers, "").await;
            assert_eq!(answer.status, 401, "{}", text(&answer));
            assert!(
                answer.head.contains("www-authenticate: basic"),
                "{}",
                answer.head
            );
            assert!(!String::from_utf8_lossy(&answer.body).contains("<html"));
        }

        // Two players with held results; one of them has a public best too.
        let (ann, bo) = (http.create_save().await, http.create_save().await);
        http.submit(ann.token, &words_game(1, 90, now - 60_000))
            .await;
        let ann_words = words_game(2, 240, now - 50_000);
        let ann_quote = played_game(Mode::Quote, 1, 230, now - 40_000);
        let bo_words = words_game(3, 280, now - 30_000);
        for (token, game) in [
            (ann.token, &ann_words),
            (ann.token, &ann_quote),
            (bo.token, &bo_words),
        ] {
            assert!(http.submit(token, game).await.held);
        }
        assert!(value_of(&bo_words) > value_of(&ann_words).max(value_of(&ann_quote)));

        let answer = http
            .send("GET", "/admin", &[("Authorization", &auth)], "")
            .await;
        assert_eq!(answer.status, 200, "{}", text(&answer));
        assert!(
            answer.head.contains("content-type: text/html"),
            "{}",
            answer.head
        );
        assert!(
            answer.head.contains("cache-control: no-store"),
            "{}",
            answer.head
        );
        assert!(
            answer.head.contains("content-security-policy:"),
            "{}",
            answer.head
        );
        let page = String::from_utf8(answer.body).unwrap();
        // Best first, grouped by player: Bo's one result, then Ann's best first.
        let (ann_best, ann_next) = if value_of(&ann_words) >= value_of(&ann_quote) {
            (&ann_words, &ann_quote)
        } else {
            (&ann_quote, &ann_words)
        };
        let expected: Vec<String> = [&bo_words, ann_best, ann_next]
            .iter()
            .map(|game| game["scoreId"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(listed_scores(&page), expected, "{page}");
        let bo_at = page.find(&bo.profile.display_name).unwrap();
        let ann_at = page.find(&ann.profile.display_name).unwrap();
        assert!(bo_at < ann_at, "{page}");
        assert!(page.contains("3 verified results"), "Ann's count: {page}");
        let ann_public = value_of(&words_game(1, 90, now));
        let shown = format!("{}.{:02} WPM", ann_public / 100, ann_public % 100);
        assert!(page.contains(&shown), "Ann's public best {shown}: {page}");

        // The replay shows what was typed, and when.
        let bo_score = expected[0].clone();
        let replay = http
            .send(
                "GET",
                &format!("/admin/replay/{}/{bo_score}", bo.player_id),
                &[("Authorization", &auth)],
                "",
            )
            .await;
        assert_eq!(replay.status, 200);
        let replay = String::from_utf8(replay.body).unwrap();
        assert!(
            replay.contains("0.000 s") && replay.contains("Backspace"),
            "{replay}"
        );

        // A POST needs the page's form token, and our own origin.
        let token = form_token(&page);
        let approve = |form_token: &str| {
            format!(
                "player={}&score={bo_score}&form_token={form_token}",
                bo.player_id
            )
        };
        let form = ("Content-Type", "application/x-www-form-urlencoded");
        let answer = http
            .send(
                "POST",
                "/admin/approve",
                &[("Authorization", &auth), form],
                &approve("0"),
            )
            .await;
        assert_eq!(answer.status, 403, "{}", text(&answer));
        let foreign = ("Origin", "https://evil.example");
        let answer = http
            .send(
                "POST",
                "/admin/approve",
                &[("Authorization", &auth), form, foreign],
                &approve(&token),
            )
            .await;
        assert_eq!(answer.status, 403, "{}", text(&answer));
        let answer = http
            .send("POST", "/admin/approve", &[form], &approve(&token))
            .await;
        assert_eq!(answer.status, 401, "{}", text(&answer));
        let answer = http
            .send(
                "POST",
                "/admin/approve",
                &[("Authorization", &auth), form],
                "player=x",
            )
            .await;
        assert_eq!(answer.status, 422, "{}", text(&answer));
        assert!(String::from_utf8_lossy(&answer.body).contains("INVALID_BODY"));
        assert!(http.board("words", "alltime").await.len() == 1);

        let answer = http
            .send(
                "POST",
                "/admin/approve",
                &[("Authorization", &auth), form],
                &approve(&token),
            )
            .await;
        assert_eq!(answer.status, 303, "{}", text(&answer));
        assert!(answer.head.contains("location: /admin"), "{}", answer.head);
        let board = http.board("words", "alltime").await;
        assert_eq!(board[0], value_of(&bo_words), "approved onto the board");
        let page = http
            .send("GET", "/admin", &[("Authorization", &auth)], "")
            .await;
        let page = String::from_utf8(page.body).unwrap();
        assert_eq!(listed_scores(&page).len(), 2, "Bo left the queue: {page}");
        assert!(!page.contains(&bo.profile.display_name), "{page}");

        // Hiding a player takes their public results off the boards.
        assert_eq!(http.board("words", "alltime").await.len(), 2);
        let hide = format!("player={}&form_token={token}", ann.player_id);
        let answer = http
            .send(
                "POST",
                "/admin/hide",
                &[("Authorization", &auth), form],
                &hide,
            )
            .await;
        assert_eq!(answer.status, 303, "{}", text(&answer));
        assert_eq!(http.board("words", "alltime").await, [value_of(&bo_words)]);
        server.assert_rank_counts_exact().await;
    }
}

#[tokio::test]
async fn without_an_operator_token_there_is_no_review_page() {
    let (_server, http) = servers(
        "without_an_operator_token_there_is_no_review_page",
        Options::default(),
    )
    .await
    .remove(0);
    let answer = http
        .send(
            "GET",
            "/admin",
            &[("Authorization", &basic(OPERATOR_TOKEN))],
            "",
        )
        .await;
    assert_eq!(answer.status, 404, "{}", text(&answer));
}
