//! Names that cannot impersonate and links that lose nothing, tried as an attacker
//! would, over real HTTP on a socket (docs/replay.md, "Display names"; docs/api.md,
//! "Devices"): names with characters that show nothing or with nothing to show are
//! refused with their own codes; a name that looks like another player's (one Cyrillic
//! letter, a zero for an O) is taken; saves from before look-alike keys are keyed again,
//! oldest first, and a board tells look-alike names apart; a link code says whose it is
//! without being used; and folding a save into another keeps the best of both on every
//! board.

mod common;

use axum::body::Bytes;
use common::{MONDAY_2026_11_30_UTC8, TestServer, played_game, value_of};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use keydo_core::Mode;
use keydo_core::api::week::week_of;
use keydo_core::api::{IDEMPOTENCY_KEY_HEADER, Leaderboard, LinkCode, SaveCreated};
use keydo_core::names::DisplayName;
use serde_json::{Value, json};
use std::net::SocketAddr;
use tokio::net::TcpStream;
use uuid::Uuid;

/// The server on a real socket, spoken to with an HTTP/1.1 client.
struct Http {
    address: SocketAddr,
}

/// What a request came to: the status and the JSON body (`Null` when empty).
struct Answer {
    status: u16,
    body: Value,
}

impl Answer {
    /// Asserts an error answer with `code` and a sentence for people; returns the message.
    fn refused(&self, status: u16, code: &str) -> String {
        assert_eq!(
            (self.status, self.body["error"]["code"].as_str()),
            (status, Some(code)),
            "{}",
            self.body
        );
        let message = self.body["error"]["message"].as_str().unwrap().to_owned();
        assert!(message.ends_with('.'), "{message}");
        message
    }

    fn ok<T: serde::de::DeserializeOwned>(self, status: u16) -> T {
        assert_eq!(self.status, status, "{}", self.body);
        serde_json::from_value(self.body).unwrap()
    }
}

impl Http {
    async fn on(server: &TestServer) -> Http {
        Http {
            address: server.listen().await,
        }
    }

    async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<Uuid>,
        body: Option<&Value>,
    ) -> Answer {
        let stream = TcpStream::connect(self.address).await.unwrap();
        let (mut sender, connection) = http1::handshake(TokioIo::new(stream)).await.unwrap();
        tokio::spawn(connection);
        let mut request = hyper::Request::builder()
            .method(method)
            .uri(path)
            .header("host", self.address.to_string())
            .header(IDEMPOTENCY_KEY_HEADER, Uuid::new_v4().to_string());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let bytes = body.map(Value::to_string).unwrap_or_default();
        let response = sender
            .send_request(request.body(Full::new(Bytes::from(bytes))).unwrap())
            .await
            .unwrap();
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        let body = match bytes.is_empty() {
            true => Value::Null,
            false => serde_json::from_slice(&bytes).unwrap(),
        };
        Answer { status, body }
    }

    async fn create_save(&self, name: Option<&str>) -> Answer {
        let body = match name {
            Some(name) => json!({ "displayName": name }),
            None => json!({}),
        };
        self.send("POST", "/api/saves", None, Some(&body)).await
    }

    async fn named_save(&self, name: &str) -> SaveCreated {
        self.create_save(Some(name)).await.ok(201)
    }

    async fn rename(&self, save: &SaveCreated, name: &str) -> Answer {
        let operation = json!({
            "baseVersion": save.version,
            "base": { "displayName": save.profile.display_name },
            "changes": { "displayName": name },
            "changedAt": 1,
        });
        self.send("PATCH", "/api/saves/me", Some(save.token), Some(&operation))
            .await
    }

    async fn submit(&self, token: Uuid, game: &Value) {
        let answer = self
            .send("POST", "/api/scores", Some(token), Some(game))
            .await;
        assert_eq!(answer.status, 200, "{}", answer.body);
        assert_eq!(answer.body["held"], false, "{}", answer.body);
    }

    async fn board(&self, mode: Mode, board: &str, limit: u32) -> Leaderboard {
        let path = format!(
            "/api/leaderboard?mode={}&board={board}&limit={limit}",
            mode.id()
        );
        self.send("GET", &path, None, None).await.ok(200)
    }

    async fn link_code(&self, token: Uuid) -> LinkCode {
        self.send(
            "POST",
            "/api/devices/link-codes",
            Some(token),
            Some(&json!({})),
        )
        .await
        .ok(201)
    }

    async fn check_code(&self, code: &str) -> Answer {
        let body = json!({ "code": code });
        self.send("POST", "/api/devices/link-codes/check", None, Some(&body))
            .await
    }
}

/// Each character that shows nothing, in a name that otherwise reads "Swift Otter".
const INVISIBLE: [(&str, &str); 6] = [
    ("variation selector", "Swift Otter\u{fe0f}"),
    ("combining grapheme joiner", "Swift\u{34f} Otter"),
    ("Hangul filler", "Swift\u{3164} Otter"),
    ("Hangul choseong filler", "Swift \u{115f}Otter"),
    ("braille blank", "Swift\u{2800}Otter"),
    ("variation selector 17", "Swift O\u{e0100}tter"),
];

/// Names with nothing a reader can see.
const BLANK: [&str; 5] = [
    "\u{2800}",
    "\u{2800} \u{2800}\u{2800}",
    "\u{3164}",
    "\u{115f}\u{1160}\u{3164}",
    "\u{fe0f}\u{34f}",
];

#[tokio::test]
async fn names_with_characters_that_show_nothing_are_refused_with_their_own_code() {
    let server = TestServer::sqlite().await;
    let http = Http::on(&server).await;
    let save = http.named_save("Calm Dolphin").await;
    for (what, name) in INVISIBLE {
        let message = http
            .create_save(Some(name))
            .await
            .refused(422, "NAME_INVISIBLE_CHARACTER");
        assert!(message.contains("it shows nothing"), "{what}: {message}");
        http.rename(&save, name)
            .await
            .refused(422, "NAME_INVISIBLE_CHARACTER");
    }
    for name in BLANK {
        let message = http
            .create_save(Some(name))
            .await
            .refused(422, "NAME_BLANK");
        assert!(message.contains("visible"), "{name:?}: {message}");
        http.rename(&save, name).await.refused(422, "NAME_BLANK");
    }
    // Spaces alone are an empty name, as before.
    http.create_save(Some("   "))
        .await
        .refused(422, "INVALID_DISPLAY_NAME");
    // Nothing was created or renamed.
    assert_eq!(server.count_rows("players").await, 1);
    let me: Value = http
        .send("GET", "/api/saves/me", Some(save.token), None)
        .await
        .ok(200);
    assert_eq!(me["profile"]["displayName"], "Calm Dolphin");
}

#[tokio::test]
async fn a_name_that_looks_like_another_players_is_taken() {
    let server = TestServer::sqlite().await;
    let http = Http::on(&server).await;
    http.named_save("Swift Otter").await;
    let other = http.named_save("Calm Dolphin").await;
    for look_alike in [
        "Swift \u{41e}tter", // Cyrillic capital О
        "Swift Ott\u{435}r", // Cyrillic е
        "Sw\u{456}ft Otter", // Cyrillic і
        "Swift \u{39f}tter", // Greek capital Omicron
        "SWIFT 0TTER",       // a zero for the O, in capitals
        "Swift Ｏｔｔｅｒ",  // full width
        "\u{405}wift Otter", // Cyrillic Ѕ
    ] {
        let message = http
            .create_save(Some(look_alike))
            .await
            .refused(422, "NAME_TAKEN");
        assert!(message.contains("looks the same"), "{message}");
        http.rename(&other, look_alike)
            .await
            .refused(422, "NAME_TAKEN");
    }
    // A name that reads differently is free.
    assert_eq!(http.rename(&other, "Swift Otters").await.status, 200);
    assert_eq!(server.count_rows("players").await, 2);
}

/// Saves named before look-alike keys keep their names; the migration makes every key
/// be computed again, oldest save first, so the older save keeps the name and the
/// newer look-alike gets a key no name has. A board shows both players' tags where both
/// are listed, and the newer one's wherever it is listed.
#[tokio::test]
async fn older_saves_are_keyed_again_and_boards_tell_look_alikes_apart() {
    let server = TestServer::sqlite().await;
    let http = Http::on(&server).await;
    let db = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    // As the keys were before: case and width folded, one Cyrillic О kept apart.
    for (id, name, key, created_at, value) in [
        ("older", "Swift Otter", "swift otter", 1, 9000),
        ("newer", "Swift \u{41e}tter", "swift \u{43e}tter", 2, 9500),
        (
            "blank",
            "Calm\u{fe0f} Dolphin",
            "calm\u{fe0f} dolphin",
            3,
            5000,
        ),
    ] {
        db.execute(
            "INSERT INTO players (player_id, token_sha256, display_name, version, created_at, name_key)
             VALUES (?1, ?1, ?2, 1, ?3, ?4)",
            rusqlite::params![id, name, created_at, key],
        )
        .unwrap();
        db.execute(
            "INSERT INTO scores (player_id, mode, value, score_id, achieved_at)
             VALUES (?1, 'words', ?2, ?1, 1)",
            rusqlite::params![id, value],
        )
        .unwrap();
    }
    db.execute_batch(include_str!("../migrations/V7__look_alike_name_keys.sql"))
        .unwrap();

    // Before any name is checked, the board compares the names it lists.
    let board = http.board(Mode::Words, "alltime", 10).await;
    let suffix = |board: &Leaderboard, name: &str| {
        board
            .entries
            .iter()
            .find(|entry| entry.display_name == name)
            .unwrap()
            .name_suffix
            .clone()
    };
    let (older, newer) = (
        suffix(&board, "Swift Otter").expect("a look-alike is listed"),
        suffix(&board, "Swift \u{41e}tter").expect("a look-alike is listed"),
    );
    assert_ne!(older, newer);
    assert_eq!(older.len(), 4);
    assert_eq!(suffix(&board, "Calm\u{fe0f} Dolphin"), None);

    // The next name checked keys every save; the older save holds "Swift Otter".
    http.create_save(Some("swift otter"))
        .await
        .refused(422, "NAME_TAKEN");
    let key_of = |id: &str| -> String {
        db.query_row(
            "SELECT name_key FROM players WHERE player_id = ?1",
            [id],
            |row| row.get(0),
        )
        .unwrap()
    };
    assert_eq!(
        key_of("older"),
        DisplayName::parse("Swift Otter").unwrap().key()
    );
    assert_ne!(key_of("newer"), key_of("older"));
    // A name today's rules refuse blocks nothing, and shows its tag.
    http.named_save("Calm Dolphin").await;

    // The newer look-alike, listed alone, still shows its tag; the older one shows none
    // when listed without it.
    let top = http.board(Mode::Words, "alltime", 1).await;
    assert_eq!(top.entries[0].display_name, "Swift \u{41e}tter");
    assert_eq!(top.entries[0].name_suffix.as_ref(), Some(&newer));
    db.execute("DELETE FROM scores WHERE player_id = 'newer'", [])
        .unwrap();
    let board = http.board(Mode::Words, "alltime", 10).await;
    assert_eq!(suffix(&board, "Swift Otter"), None);
    assert!(suffix(&board, "Calm\u{fe0f} Dolphin").is_some());
}

#[tokio::test]
async fn a_link_code_says_whose_it_is_without_being_used() {
    let server = TestServer::sqlite().await;
    let http = Http::on(&server).await;
    let target = http.named_save("Swift Otter").await;
    let code = http.link_code(target.token).await;
    for typed in [code.code.clone(), code.code.to_lowercase().replace('-', "")] {
        let owner: Value = http.check_code(&typed).await.ok(200);
        assert_eq!(owner, json!({ "displayName": "Swift Otter" }));
    }
    http.check_code("ABCDE-FGHJK")
        .await
        .refused(422, "LINK_CODE_INVALID");
    http.check_code("not a code")
        .await
        .refused(422, "LINK_CODE_INVALID");
    // Checked twice, still unused: a device joins with it, and then it is spent.
    let joined: SaveCreated = http
        .send(
            "POST",
            "/api/devices",
            None,
            Some(&json!({ "code": code.code })),
        )
        .await
        .ok(201);
    assert_eq!(joined.player_id, target.player_id);
    http.check_code(&code.code)
        .await
        .refused(422, "LINK_CODE_INVALID");
    // Checking spends the address's link-attempt budget like linking does.
    let mut limited = None;
    for _ in 0..20 {
        let answer = http.check_code("ABCDE-FGHJK").await;
        if answer.status == 429 {
            limited = Some(answer);
            break;
        }
    }
    limited
        .expect("guesses are rate limited")
        .refused(429, "RATE_LIMITED");
}

/// The joining save and the link's player each hold some of the bests: after the fold,
/// every board (all time and each week, per mode) holds the better of the two, under
/// the link's player, once.
#[tokio::test]
async fn folding_a_save_into_another_keeps_the_best_of_both_on_every_board() {
    let server = TestServer::sqlite().await;
    let http = Http::on(&server).await;
    let last_week = MONDAY_2026_11_30_UTC8 - 2 * 24 * 3_600_000;
    server.clock.set(last_week);
    let target = http.named_save("Swift Otter").await;
    let joining = http.named_save("Calm Dolphin").await;
    let mut seed = 0;
    let mut game = |mode: Mode, wpm: u32, played_at: i64| {
        seed += 1;
        played_game(mode, seed, wpm, played_at)
    };
    // Last week: the joining save is better in words.
    let target_last_week = game(Mode::Words, 60, last_week);
    let joining_last_week = game(Mode::Words, 95, last_week);
    http.submit(target.token, &target_last_week).await;
    http.submit(joining.token, &joining_last_week).await;
    // This week: the link's player is better in words (but below the joining save's
    // best of all time); only the joining save played time; only the target quote.
    let now = MONDAY_2026_11_30_UTC8 + 3_600_000;
    server.clock.set(now);
    let target_words = game(Mode::Words, 80, now);
    let joining_words = game(Mode::Words, 50, now);
    let joining_time = game(Mode::Time, 70, now);
    let target_quote = game(Mode::Quote, 40, now);
    http.submit(target.token, &target_words).await;
    http.submit(joining.token, &joining_words).await;
    http.submit(joining.token, &joining_time).await;
    http.submit(target.token, &target_quote).await;

    let code = http.link_code(target.token).await;
    let linked: SaveCreated = http
        .send(
            "POST",
            "/api/devices",
            Some(joining.token),
            Some(&json!({ "code": code.code })),
        )
        .await
        .ok(201);
    assert_eq!(linked.player_id, target.player_id);
    assert_eq!(linked.profile.display_name, "Swift Otter");

    let only = |board: Leaderboard| {
        assert_eq!(board.entries.len(), 1, "{board:?}");
        let entry = &board.entries[0];
        assert_eq!(entry.display_name, "Swift Otter");
        entry.value
    };
    assert_eq!(
        only(http.board(Mode::Words, "alltime", 10).await),
        value_of(&joining_last_week)
    );
    assert_eq!(
        only(http.board(Mode::Words, "weekly", 10).await),
        value_of(&target_words)
    );
    assert_eq!(
        only(http.board(Mode::Time, "alltime", 10).await),
        value_of(&joining_time)
    );
    assert_eq!(
        only(http.board(Mode::Time, "weekly", 10).await),
        value_of(&joining_time)
    );
    assert_eq!(
        only(http.board(Mode::Quote, "alltime", 10).await),
        value_of(&target_quote)
    );
    // Last week's board, read past the API (it shows only the current week).
    let db = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    let last_week_rows: Vec<(String, i64)> = db
        .prepare("SELECT player_id, value FROM weekly_scores WHERE mode = 'words' AND week = ?1")
        .unwrap()
        .query_map([week_of(last_week)], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        last_week_rows,
        [(target.player_id.to_string(), value_of(&joining_last_week))]
    );
    // The player's own bests say the same, and the folded save is gone.
    let me: Value = http
        .send("GET", "/api/saves/me", Some(linked.token), None)
        .await
        .ok(200);
    let best = |mode: Mode| {
        me["bests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|best| best["mode"] == mode.id())
            .map(|best| (best["alltime"].as_i64(), best["weekly"].as_i64()))
    };
    assert_eq!(
        best(Mode::Words),
        Some((
            Some(value_of(&joining_last_week)),
            Some(value_of(&target_words))
        ))
    );
    assert_eq!(
        best(Mode::Time),
        Some((Some(value_of(&joining_time)), Some(value_of(&joining_time))))
    );
    assert_eq!(
        best(Mode::Quote),
        Some((Some(value_of(&target_quote)), Some(value_of(&target_quote))))
    );
    assert_eq!(server.count_rows("players").await, 1);
    http.send("GET", "/api/saves/me", Some(joining.token), None)
        .await
        .refused(401, "UNAUTHORIZED");
}
