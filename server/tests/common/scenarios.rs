//! Behaviours of saves, scores and leaderboards, written once and run on every
//! database (`api.rs` on SQLite, `postgres.rs` on PostgreSQL).

use super::{
    MONDAY_2026_11_30_UTC8, TestServer, assert_error, body_json, played_game, post_json,
    resubmitted, value_of, with_token, words_game,
};
use axum::body::Body;
use axum::http::{Request, header};
use keydo_core::Mode;
use keydo_core::api::week::{week_of, week_start_ms};
use keydo_core::api::{IDEMPOTENCY_KEY_HEADER, Leaderboard, LinkCode, Save, ScoreAck};
use serde_json::{Value, json};
use uuid::Uuid;

pub const FIREFOX_ON_LINUX: &str =
    "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

/// A one-time code to link a device to `token`'s player, expecting 201.
pub async fn link_code(server: &TestServer, token: Uuid) -> LinkCode {
    let request = with_token(
        Request::post("/api/devices/link-codes")
            .body(Body::empty())
            .unwrap(),
        token,
    );
    let response = server.send(request).await;
    assert_eq!(response.status(), 201);
    serde_json::from_value(body_json(response).await).unwrap()
}

/// The request a joining device sends with `code` (without its own token).
pub fn join(code: &str, key: &str) -> Request<Body> {
    Request::post("/api/devices")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::USER_AGENT, FIREFOX_ON_LINUX)
        .header(IDEMPOTENCY_KEY_HEADER, key)
        .body(Body::from(json!({ "code": code }).to_string()))
        .unwrap()
}

pub async fn submit(server: &TestServer, token: Uuid, game: &Value) -> ScoreAck {
    let response = server
        .send(with_token(post_json("/api/scores", game), token))
        .await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

/// `GET /api/saves/me`, expecting 200.
pub async fn me(server: &TestServer, token: Uuid) -> Save {
    let request = Request::get("/api/saves/me").body(Body::empty()).unwrap();
    let response = server.send(with_token(request, token)).await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

pub async fn leaderboard(server: &TestServer, query: &str, token: Option<Uuid>) -> Leaderboard {
    let mut request = Request::get(format!("/api/leaderboard?{query}"))
        .body(Body::empty())
        .unwrap();
    if let Some(token) = token {
        request = with_token(request, token);
    }
    let response = server.send(request).await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

pub fn current_week(server: &TestServer) -> i64 {
    use keydo_server::clock::Clock;
    week_of(server.clock.now_ms())
}

/// A save is created with a chosen or generated name and shown back without its token.
pub async fn saves_are_created_and_shown(server: &TestServer) {
    let response = server
        .send(post_json(
            "/api/saves",
            &json!({ "displayName": " 键道 Typist " }),
        ))
        .await;
    assert_eq!(response.status(), 201);
    let created = body_json(response).await;
    assert_eq!(created["profile"]["displayName"], "键道 Typist");
    assert_eq!(created["version"], 1);
    let token: Uuid = created["token"].as_str().unwrap().parse().unwrap();
    assert_eq!(token.get_version_num(), 4);

    let response = server
        .send(with_token(
            Request::get("/api/saves/me").body(Body::empty()).unwrap(),
            token,
        ))
        .await;
    assert_eq!(response.status(), 200);
    let me = body_json(response).await;
    assert!(
        me.get("token").is_none(),
        "the token is shown only once: {me}"
    );
    let me: Save = serde_json::from_value(me).unwrap();
    assert_eq!(
        me.player_id.to_string(),
        created["playerId"].as_str().unwrap()
    );
    assert_eq!(me.profile.display_name, "键道 Typist");

    let generated = server.create_save().await;
    let words: Vec<&str> = generated.profile.display_name.split(' ').collect();
    assert_eq!(words.len(), 3, "{}", generated.profile.display_name);
    assert!(
        words[2]
            .parse::<u16>()
            .is_ok_and(|n| (1000..=9999).contains(&n))
    );

    let refused = server
        .send(post_json(
            "/api/saves",
            &json!({ "displayName": "x".repeat(25) }),
        ))
        .await;
    assert_error(refused, 422, "INVALID_DISPLAY_NAME").await;
}

/// The same game sent 100 times at once is recorded once, and every answer is the same.
pub async fn the_same_game_sent_100_times_is_one_row(server: &TestServer) {
    let save = server.create_save().await;
    let game = words_game(1, 80, MONDAY_2026_11_30_UTC8);
    let value = value_of(&game);
    let answers = futures_util::future::join_all((0..100).map(|_| {
        let request = with_token(post_json("/api/scores", &game), save.token);
        let app = server.app_from(super::client_addr());
        tokio::spawn(async move {
            use tower::ServiceExt;
            let response = app.oneshot(request).await.unwrap();
            assert_eq!(response.status(), 200);
            body_json(response).await
        })
    }))
    .await;
    let answers: Vec<Value> = answers.into_iter().map(Result::unwrap).collect();
    // One result, one code, in every answer.
    let code = answers[0]["code"].as_str().expect("a code").to_owned();
    let expected = json!({
        "improved": true, "best": value, "weeklyAccepted": true, "weeklyImproved": true,
        "weeklyBest": value, "week": current_week(server), "held": false, "code": code
    });
    for answer in answers {
        assert_eq!(answer, expected);
    }
    for board in ["alltime", "weekly"] {
        let board = leaderboard(
            server,
            &format!("mode=words&board={board}"),
            Some(save.token),
        )
        .await;
        assert_eq!(board.entries.len(), 1);
        assert_eq!(board.entries[0].value, value);
        assert_eq!(board.me.unwrap().rank, 1);
    }
}

/// A lower score changes nothing and still answers 200; a higher one replaces it. In
/// `quote` (passages have no seed to spend) the same passage typed the same way twice
/// is a tie, which keeps the earlier game.
pub async fn a_lower_score_is_a_no_op(server: &TestServer) {
    let save = server.create_save().await;
    let week = current_week(server);
    let t = MONDAY_2026_11_30_UTC8;
    let first_game = played_game(Mode::Quote, 1, 80, t);
    let first = submit(server, save.token, &first_game).await;
    assert!(first.improved && first.weekly_improved);
    let best = value_of(&first_game);
    assert_eq!(first.best, best);

    let lower_game = played_game(Mode::Quote, 1, 50, t);
    assert!(value_of(&lower_game) < best);
    let lower = submit(server, save.token, &lower_game).await;
    assert_eq!(
        lower,
        ScoreAck {
            improved: false,
            best,
            weekly_accepted: true,
            weekly_improved: false,
            weekly_best: Some(best),
            week,
            held: false,
            code: lower.code.clone(),
            first_attempt: None,
        }
    );
    assert!(lower.code.is_some(), "every accepted result has a code");
    let equal = submit(server, save.token, &resubmitted(&first_game)).await;
    assert!(!equal.improved, "a tie keeps the earlier game");

    let received = t + 3_600_000 + 5_000;
    server.clock.set(received);
    let higher_game = played_game(Mode::Quote, 1, 110, t);
    let higher = submit(server, save.token, &higher_game).await;
    assert!(higher.improved && higher.weekly_improved);
    assert_eq!(higher.best, value_of(&higher_game));
    let board = leaderboard(server, "mode=quote&board=alltime", None).await;
    assert_eq!(board.entries.len(), 1);
    assert_eq!(
        (board.entries[0].value, board.entries[0].achieved_at),
        (value_of(&higher_game), received),
        "achievedAt is when the server received the game"
    );
}

/// The weekly board takes a game only in the server's current UTC+8 week, on both
/// sides of Monday 00:00 UTC+8; the all-time board always may.
pub async fn weekly_boards_follow_the_servers_utc8_week(server: &TestServer) {
    let monday = MONDAY_2026_11_30_UTC8;
    let week = week_of(monday);
    assert_eq!(week_start_ms(week), monday);
    server.clock.set(monday - 3_600_000);
    let save = server.create_save().await;

    // Sunday 23:59:59.999 UTC+8 on the server; the client's clock, a second ahead,
    // already says Monday.
    server.clock.set(monday - 1);
    let early_game = words_game(1, 60, monday + 1_000);
    let early = submit(server, save.token, &early_game).await;
    assert_eq!(
        (early.weekly_accepted, early.weekly_best, early.week),
        (false, None, week - 1)
    );
    assert!(early.improved, "the all-time board still takes it");
    let on_time_game = words_game(2, 62, monday - 2);
    let on_time = submit(server, save.token, &on_time_game).await;
    assert_eq!(
        (on_time.weekly_accepted, on_time.weekly_best),
        (true, Some(value_of(&on_time_game)))
    );

    // Monday 00:00 UTC+8: last week's games no longer reach a weekly board.
    server.clock.set(monday);
    let late_game = words_game(3, 90, monday - 2);
    let late = submit(server, save.token, &late_game).await;
    assert_eq!(
        (late.weekly_accepted, late.weekly_improved, late.week),
        (false, false, week)
    );
    let this_week_game = words_game(4, 40, monday);
    let this_week = submit(server, save.token, &this_week_game).await;
    assert_eq!(
        (this_week.weekly_accepted, this_week.weekly_best),
        (true, Some(value_of(&this_week_game)))
    );
    assert_eq!(
        this_week.best,
        value_of(&late_game),
        "the all-time best is the late game"
    );

    let weekly = leaderboard(server, "mode=words&board=weekly", Some(save.token)).await;
    assert_eq!(weekly.week, week);
    assert_eq!(
        weekly.entries.iter().map(|e| e.value).collect::<Vec<_>>(),
        [value_of(&this_week_game)]
    );
    server.clock.set(monday - 1);
    let last_week = leaderboard(server, "mode=words&board=weekly", None).await;
    assert_eq!(
        last_week
            .entries
            .iter()
            .map(|e| e.value)
            .collect::<Vec<_>>(),
        [value_of(&on_time_game)]
    );
}

/// Best first; equal values go to whoever the server received first, then to the
/// smaller player id; `me` is the caller's place in that order. Players typing the same
/// seed the same way score the same.
pub async fn leaderboards_are_ordered_and_ties_go_to_the_first(server: &TestServer) {
    let t = MONDAY_2026_11_30_UTC8 + 3_600_000;
    let mut players = Vec::new();
    for (wpm, received_at) in [
        (60, t + 1_000),
        (70, t + 2_000),
        (60, t + 500),
        (60, t + 1_000),
        (30, t),
    ] {
        server.clock.set(t);
        let save = server.create_save().await;
        server.clock.set(received_at);
        // Every game claims the week's first millisecond: `playedAt` decides no tie.
        let game = words_game(7, wpm, MONDAY_2026_11_30_UTC8);
        submit(server, save.token, &game).await;
        players.push((save, value_of(&game), received_at));
    }
    assert_eq!(players[0].1, players[2].1, "the same game scores the same");
    let mut expected = players.clone();
    expected.sort_by_key(|(save, value, at)| {
        (std::cmp::Reverse(*value), *at, save.player_id.to_string())
    });

    for board in ["alltime", "weekly"] {
        let shown = leaderboard(server, &format!("mode=words&board={board}"), None).await;
        let names: Vec<_> = shown
            .entries
            .iter()
            .map(|e| e.display_name.as_str())
            .collect();
        let expected_names: Vec<_> = expected
            .iter()
            .map(|(s, ..)| s.profile.display_name.as_str())
            .collect();
        assert_eq!(names, expected_names, "{board}");
        assert_eq!(
            shown.entries.iter().map(|e| e.rank).collect::<Vec<_>>(),
            [1, 2, 3, 4, 5]
        );
        assert!(shown.me.is_none());
        for (place, (save, value, at)) in expected.iter().enumerate() {
            let mine = leaderboard(
                server,
                &format!("mode=words&board={board}&limit=2"),
                Some(save.token),
            )
            .await;
            assert_eq!(mine.entries.len(), 2);
            let me = mine.me.unwrap();
            assert_eq!(
                (me.rank, me.value, me.achieved_at),
                (place as i64 + 1, *value, *at)
            );
        }
    }
    let other_mode = leaderboard(server, "mode=zh&board=alltime", Some(players[0].0.token)).await;
    assert!(other_mode.entries.is_empty() && other_mode.me.is_none());
}
