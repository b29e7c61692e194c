//! Verified results (docs/replay.md): forged submissions are refused with stable codes,
//! held results stay off the boards until an operator approves them, hidden players
//! and name resets, one save per name. Every scenario runs on SQLite and, through
//! `scripts/with-postgres.sh`, on PostgreSQL (without it the PostgreSQL runs print
//! why and pass vacuously, as in `postgres.rs`).

mod common;

use common::scenarios::{leaderboard, submit};
use common::{
    Options, TestServer, assert_error, body_json, played_game, post_json, postgres_admin_url,
    resubmitted, value_of, with_token, words_game,
};
use keydo_core::api::week::week_of;
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Mode, PromptId, Seed, Session};
use keydo_server::clock::Clock;
use keydo_server::store::Location;
use serde_json::{Value, json};
use uuid::Uuid;

const DAY_MS: i64 = 86_400_000;

/// Runs `keydo-server admin <args>` on the server's database, as an operator would
/// while it serves; returns whether it succeeded and its answer (stdout, or stderr
/// when it failed).
async fn admin(server: &TestServer, args: &[&str]) -> (bool, String) {
    let url = match &server.location {
        Location::Sqlite(path) => format!("sqlite://{}", path.display()),
        Location::Postgres(url) => url.clone(),
    };
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_keydo-server"));
    command
        .arg("admin")
        .arg("--database-url")
        .arg(url)
        .args(args)
        .env_remove("KEYDO_DATA_DIR");
    let output = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let answer = if output.status.success() {
        output.stdout
    } else {
        output.stderr
    };
    (output.status.success(), String::from_utf8(answer).unwrap())
}

async fn refused(server: &TestServer, token: Uuid, game: &Value, code: &str) {
    let response = server
        .send(with_token(post_json("/api/scores", game), token))
        .await;
    assert_error(response, 422, code).await;
}

async fn board_values(server: &TestServer, mode: &str, board: &str) -> Vec<i64> {
    leaderboard(server, &format!("mode={mode}&board={board}"), None)
        .await
        .entries
        .iter()
        .map(|entry| entry.value)
        .collect()
}

/// A `words` game that types only the first `chars` characters of its 50 words.
fn partial_words_game(seed: u64, chars: usize, played_at: i64) -> Value {
    let id = PromptId::for_game(Mode::Words, Seed::new(seed).unwrap(), None);
    let prompt = Corpora::shipped().prompt(Mode::Words, &id).unwrap();
    let mut session = Session::new(Mode::Words, &prompt);
    for (i, c) in prompt.as_str().chars().take(chars).enumerate() {
        session.commit(&c.to_string(), 1_000 + 60 * i as u64);
    }
    let stats = session.stats();
    json!({
        "scoreId": Uuid::new_v4(), "mode": "words", "week": week_of(played_at),
        "value": keydo_core::game::score::value(Mode::Words, &stats), "playedAt": played_at,
        "stats": stats, "prompt": id, "input": session.input_log()
    })
}

/// The curl cases: every forged submission is 422 with its own code, and none of them
/// reaches a board.
async fn forged_submissions_are_refused_with_stable_codes(server: &TestServer) {
    let save = server.create_save().await;
    let now = server.clock.now_ms();
    let honest = words_game(11, 90, now - 60_000);

    // 350 WPM on every board in one request: the old body, claims and no log.
    let claimed = json!({
        "scoreId": Uuid::new_v4(), "mode": "words", "week": week_of(now), "value": 35_000,
        "playedAt": now, "stats": { "durationMs": 60_000, "correctChars": 1_750, "errors": 0,
                                    "keystrokes": 1_750, "correctKeystrokes": 1_750 }
    });
    refused(server, save.token, &claimed, "INPUT_LOG_MISSING").await;
    let mut value_without_log = honest.clone();
    value_without_log.as_object_mut().unwrap().remove("input");
    refused(server, save.token, &value_without_log, "INPUT_LOG_MISSING").await;

    let mut inflated = resubmitted(&honest);
    inflated["value"] = json!(value_of(&honest) + 100);
    refused(server, save.token, &inflated, "REPLAY_MISMATCH").await;

    // A log for another prompt: a longer one is left unfinished.
    let own_length = |seed| {
        let id = PromptId::for_game(Mode::Words, Seed::new(seed).unwrap(), None);
        Corpora::shipped()
            .prompt(Mode::Words, &id)
            .unwrap()
            .as_str()
            .len()
    };
    let longer = (12..)
        .find(|seed| own_length(*seed) > own_length(11) + 20)
        .unwrap();
    let mut other_prompt = resubmitted(&honest);
    other_prompt["prompt"] = json!({ "corpus": "words", "seed": longer });
    refused(server, save.token, &other_prompt, "INCOMPLETE_GAME").await;
    let mut no_such_passage = played_game(Mode::Quote, 1, 80, now);
    no_such_passage["prompt"]["passage"] = json!("no-such-passage");
    refused(server, save.token, &no_such_passage, "UNKNOWN_PROMPT").await;
    let mut garbage = resubmitted(&honest);
    garbage["input"] = json!("AQcHBw==");
    refused(server, save.token, &garbage, "INPUT_LOG_INVALID").await;
    let mut not_base64 = resubmitted(&honest);
    not_base64["input"] = json!("not base64!");
    refused(server, save.token, &not_base64, "INVALID_BODY").await;

    // A "50 words" game of 87 characters.
    refused(
        server,
        save.token,
        &partial_words_game(13, 87, now),
        "INCOMPLETE_GAME",
    )
    .await;

    // Times: in the future, in another week, before the save, `playedAt: 0`.
    let moved = |played_at: i64, week: i64| {
        let mut game = resubmitted(&honest);
        game["playedAt"] = json!(played_at);
        game["week"] = json!(week);
        game
    };
    let future = now + 5 * 60_000 + 1;
    let month_ago = now - 30 * DAY_MS;
    let before_save = now - 31 * DAY_MS;
    for (played_at, week, code) in [
        (future, week_of(future), "PLAYED_IN_FUTURE"),
        (month_ago, week_of(now), "WRONG_WEEK"),
        (before_save, week_of(before_save), "PLAYED_BEFORE_SAVE"),
        (0, week_of(0), "PLAYED_BEFORE_SAVE"),
    ] {
        refused(server, save.token, &moved(played_at, week), code).await;
    }
    for board in ["alltime", "weekly"] {
        assert!(
            board_values(server, "words", board).await.is_empty(),
            "{board}"
        );
    }

    // A month-old game with its true week reaches only the all-time board.
    let old = submit(server, save.token, &moved(month_ago, week_of(month_ago))).await;
    assert!(old.improved && !old.weekly_accepted);
    assert!(board_values(server, "words", "weekly").await.is_empty());

    // A seed counts once per player; a resend of the same game is still the same 200.
    let sent = words_game(21, 70, now);
    let first = submit(server, save.token, &sent).await;
    refused(server, save.token, &words_game(21, 95, now), "SEED_REUSED").await;
    // The time mode's words are the words mode's stream: the seed is spent there too.
    refused(
        server,
        save.token,
        &played_game(Mode::Time, 21, 95, now),
        "SEED_REUSED",
    )
    .await;
    assert_eq!(submit(server, save.token, &sent).await, first);
    // Another player may type the same seed.
    let other = server.create_save().await;
    submit(server, other.token, &words_game(21, 95, now)).await;
}

/// A superhuman but consistent log is accepted and held; it counts for its player,
/// stays off the boards, and joins them once approved. A metronome's is held as
/// suspicious whatever its speed.
async fn held_results_wait_for_an_operator(server: &TestServer) {
    let save = server.create_save().await;
    let t0 = server.clock.now_ms();
    let fast = words_game(31, 280, t0 - 1_000);
    let held = submit(server, save.token, &fast).await;
    assert!(
        held.held && !held.improved && !held.weekly_improved,
        "{held:?}"
    );
    assert_eq!((held.best, held.weekly_best), (0, Some(0)));
    assert_eq!(submit(server, save.token, &fast).await, held, "a resend");
    for board in ["alltime", "weekly"] {
        let shown = leaderboard(
            server,
            &format!("mode=words&board={board}"),
            Some(save.token),
        )
        .await;
        assert!(shown.entries.is_empty() && shown.me.is_none(), "{board}");
    }

    let robot = server.create_save().await;
    server.clock.set(t0 + 1_000);
    let script = play(
        Corpora::shipped(),
        Mode::Quote,
        Seed::new(1).unwrap(),
        &Typist::metronome(150.0),
    )
    .submission(Uuid::new_v4(), t0 as u64);
    let script = serde_json::to_value(script).unwrap();
    assert!(value_of(&script) < 10_000, "slow, yet held");
    assert!(submit(server, robot.token, &script).await.held);

    let (ok, listed) = admin(server, &["held"]).await;
    assert!(ok, "{listed}");
    let lines: Vec<&str> = listed.lines().collect();
    assert_eq!(
        lines[0],
        "received (UTC)\tplayer\tname\tscore\tmode\tspeed\tstate\tholds"
    );
    assert_eq!(lines.len(), 3, "{listed}");
    let fast_line: Vec<&str> = lines[1].split('\t').collect();
    assert_eq!(fast_line[1], save.player_id.to_string());
    assert_eq!(fast_line[3], fast["scoreId"].as_str().unwrap());
    assert_eq!(
        fast_line[5],
        format!("{}.{:02} WPM", value_of(&fast) / 100, value_of(&fast) % 100)
    );
    assert_eq!((fast_line[6], fast_line[7]), ("held", "speed"));
    assert_eq!(lines[2].split('\t').nth(7), Some("regular"));
    let (ok, suspicious) = admin(server, &["suspicious"]).await;
    assert!(ok);
    assert_eq!(
        suspicious.lines().count(),
        2,
        "only the metronome: {suspicious}"
    );
    assert!(suspicious.contains(&robot.player_id.to_string()));

    // Approval: on both boards, dated when the server received it.
    server.clock.set(t0 + 60_000);
    let score_id = fast["scoreId"].as_str().unwrap().to_owned();
    let player_id = save.player_id.to_string();
    let (ok, said) = admin(server, &["approve", &player_id, &score_id]).await;
    assert!(ok, "{said}");
    assert!(
        said.starts_with(&format!("approved {player_id} {score_id}")),
        "{said}"
    );
    for board in ["alltime", "weekly"] {
        let shown = leaderboard(
            server,
            &format!("mode=words&board={board}"),
            Some(save.token),
        )
        .await;
        assert_eq!(shown.entries.len(), 1, "{board}");
        assert_eq!(
            (shown.entries[0].value, shown.entries[0].achieved_at),
            (value_of(&fast), t0)
        );
        assert_eq!(shown.me.map(|me| me.rank), Some(1));
    }
    let resent = submit(server, save.token, &fast).await;
    assert!(!resent.held && resent.improved && resent.best == value_of(&fast));
    let (ok, said) = admin(server, &["approve", &player_id, &score_id]).await;
    assert!(!ok, "approving twice fails: {said}");
    assert!(said.contains("no held result"), "{said}");
    let (_, listed) = admin(server, &["held"]).await;
    assert_eq!(listed.lines().count(), 2, "the metronome still waits");
}

/// A hidden player leaves the boards (their results still count and are kept) and
/// comes back with their best when shown again.
async fn hidden_players_leave_the_boards_and_come_back(server: &TestServer) {
    let now = server.clock.now_ms();
    let (shown, hidden) = (server.create_save().await, server.create_save().await);
    submit(server, shown.token, &words_game(41, 60, now)).await;
    let best = words_game(42, 120, now);
    submit(server, hidden.token, &best).await;
    let hidden_id = hidden.player_id.to_string();
    let (ok, said) = admin(server, &["hide", &hidden_id]).await;
    assert!(ok, "{said}");
    assert_eq!(
        said.trim(),
        format!("player {hidden_id} is hidden from the public boards")
    );
    assert_eq!(board_values(server, "words", "alltime").await.len(), 1);
    let while_hidden = submit(server, hidden.token, &words_game(43, 100, now)).await;
    assert!(while_hidden.held, "a hidden player's results wait too");
    assert_eq!(board_values(server, "words", "weekly").await.len(), 1);

    let (ok, _) = admin(server, &["unhide", &hidden_id]).await;
    assert!(ok);
    for board in ["alltime", "weekly"] {
        let values = board_values(server, "words", board).await;
        assert_eq!(values[0], value_of(&best), "{board}");
        assert_eq!(values.len(), 2, "{board}");
    }
    let (ok, said) = admin(server, &["hide", &Uuid::new_v4().to_string()]).await;
    assert!(!ok && said.contains("no player has the id"), "{said}");
}

/// Names: the rules of docs/replay.md ("Names"), one save per name up to case and
/// width, and an operator's reset.
async fn names_are_checked_unique_and_reset_by_operators(server: &TestServer) {
    let create = |name: &str| post_json("/api/saves", &json!({ "displayName": name }));
    for bad in [
        "evil\u{202e}olleh",
        "a\u{200b}b",
        "\u{e000}",
        &"x".repeat(25),
        " ",
    ] {
        assert_error(server.send(create(bad)).await, 422, "INVALID_DISPLAY_NAME").await;
    }
    let response = server.send(create("KeyDo Fan")).await;
    assert_eq!(response.status(), 201);
    let fan = body_json(response).await;
    for same in ["keydo fan", "ＫＥＹＤＯ  ＦＡＮ"] {
        let error = assert_error(server.send(create(same)).await, 422, "NAME_TAKEN").await;
        assert!(
            error["error"]["message"]
                .as_str()
                .unwrap()
                .contains("already has this name")
        );
    }
    let fan_token: Uuid = fan["token"].as_str().unwrap().parse().unwrap();
    submit(
        server,
        fan_token,
        &words_game(51, 70, server.clock.now_ms()),
    )
    .await;

    let fan_id = fan["playerId"].as_str().unwrap().to_owned();
    let other = server.create_save().await;
    let (ok, said) = admin(
        server,
        &[
            "reset-name",
            &fan_id,
            &other.profile.display_name.to_uppercase(),
        ],
    )
    .await;
    assert!(
        !ok && said.contains("another player already has this name"),
        "{said}"
    );
    let (ok, said) = admin(server, &["reset-name", &fan_id, "a\u{202e}b"]).await;
    assert!(!ok && said.contains("U+202E"), "{said}");
    let (ok, said) = admin(server, &["reset-name", &fan_id, "Renamed Player"]).await;
    assert!(ok, "{said}");
    assert!(
        said.contains("set by an operator; profile version 2"),
        "{said}"
    );
    let board = leaderboard(server, "mode=words&board=alltime", None).await;
    assert_eq!(board.entries[0].display_name, "Renamed Player");
    // The old name is free again; a generated reset picks a free generated name.
    assert_eq!(server.send(create("KEYDO FAN")).await.status(), 201);
    let (ok, said) = admin(server, &["reset-name", &fan_id]).await;
    assert!(ok, "{said}");
    let board = leaderboard(server, "mode=words&board=alltime", None).await;
    assert_ne!(board.entries[0].display_name, "Renamed Player");
    if let Location::Sqlite(path) = &server.location {
        let db = rusqlite::Connection::open(path).unwrap();
        let stamps: String = db
            .query_row(
                "SELECT stamps FROM players WHERE player_id = ?1",
                [&fan_id],
                |row| row.get(0),
            )
            .unwrap();
        let stamps: serde_json::Value = serde_json::from_str(&stamps).unwrap();
        assert_eq!(stamps["displayName"]["by"], "operator", "{stamps}");
    }
}

macro_rules! on_every_database {
    ($($scenario:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[tokio::test]
                async fn $scenario() {
                    super::$scenario(&super::TestServer::sqlite().await).await;
                }
            )*
        }
        mod postgres {
            $(
                #[tokio::test]
                async fn $scenario() {
                    let Some(admin_url) = super::postgres_admin_url() else {
                        eprintln!("skipping {}: KEYDO_TEST_POSTGRES_URL is unset (see scripts/with-postgres.sh)", stringify!($scenario));
                        return;
                    };
                    let server = super::TestServer::start(super::Options {
                        postgres_admin_url: Some(admin_url),
                        ..super::Options::default()
                    })
                    .await;
                    super::$scenario(&server).await;
                }
            )*
        }
    };
}

on_every_database!(
    forged_submissions_are_refused_with_stable_codes,
    held_results_wait_for_an_operator,
    hidden_players_leave_the_boards_and_come_back,
    names_are_checked_unique_and_reset_by_operators,
);

/// Saves from before names had keys get theirs when a name is next checked; a legacy
/// name taken twice keeps both saves but blocks the name for newcomers.
#[tokio::test]
async fn legacy_names_are_keyed_before_a_name_is_checked() {
    let server = TestServer::sqlite().await;
    server.create_save().await;
    let db = rusqlite::Connection::open(server.sqlite_path()).unwrap();
    for (id, name) in [
        ("legacy-1", "Old Name"),
        ("legacy-2", "OLD NAME"),
        ("legacy-3", "bad\u{202e}"),
    ] {
        db.execute(
            "INSERT INTO players (player_id, token_sha256, display_name, version, created_at)
             VALUES (?1, ?1, ?2, 1, 0)",
            [id, name],
        )
        .unwrap();
    }
    let response = server
        .send(post_json(
            "/api/saves",
            &json!({ "displayName": "old name" }),
        ))
        .await;
    assert_error(response, 422, "NAME_TAKEN").await;
    let unkeyed: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM players WHERE name_key IS NULL",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(unkeyed, 0);
    let response = server
        .send(post_json("/api/saves", &json!({ "displayName": "bad" })))
        .await;
    assert_eq!(
        response.status(),
        201,
        "a refused legacy name blocks nothing"
    );
}

#[tokio::test]
async fn every_new_code_is_documented() {
    let document: Value = serde_json::from_str(include_str!("../openapi.json")).unwrap();
    let text = document.to_string();
    for code in [
        "INPUT_LOG_MISSING",
        "INPUT_LOG_INVALID",
        "UNKNOWN_PROMPT",
        "INCOMPLETE_GAME",
        "REPLAY_MISMATCH",
        "WRONG_WEEK",
        "PLAYED_IN_FUTURE",
        "PLAYED_BEFORE_SAVE",
        "SEED_REUSED",
        "NAME_TAKEN",
    ] {
        assert!(keydo_core::api::ApiCode::parse(code).is_some(), "{code}");
        assert!(text.contains(code), "{code} is not in openapi.json");
    }
}
