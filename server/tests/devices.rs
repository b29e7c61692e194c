//! Devices: one-time link codes, a second device joining a player (and folding in the
//! save it had), the device list and revocation, on every database (docs/api.md,
//! "Devices").

mod common;

use axum::body::Body;
use axum::http::Request;
use common::scenarios::{join, leaderboard, link_code, me, submit};
use common::{
    Options, TestServer, assert_error, body_json, header, played_game, with_token, words_game,
};
use keydo_core::Mode;
use keydo_core::api::{Devices, IDEMPOTENCY_KEY_HEADER, SaveCreated};
use keydo_server::clock::Clock;
use std::net::SocketAddr;
use uuid::Uuid;

const TEN_MINUTES_MS: i64 = 10 * 60 * 1000;

async fn joined(server: &TestServer, request: Request<Body>) -> SaveCreated {
    let response = server.send(request).await;
    assert_eq!(response.status(), 201);
    serde_json::from_value(body_json(response).await).unwrap()
}

async fn get_as(server: &TestServer, uri: &str, token: Uuid) -> axum::http::Response<Body> {
    server
        .send(with_token(
            Request::get(uri).body(Body::empty()).unwrap(),
            token,
        ))
        .await
}

async fn devices(server: &TestServer, token: Uuid) -> Devices {
    let response = get_as(server, "/api/devices", token).await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

fn revoke(id: &str, token: Uuid) -> Request<Body> {
    with_token(
        Request::delete(format!("/api/devices/{id}"))
            .body(Body::empty())
            .unwrap(),
        token,
    )
}

#[tokio::test]
async fn a_code_links_a_second_device_to_the_same_player() {
    let test = "a_code_links_a_second_device_to_the_same_player";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let first = server.create_save().await;
        let now = server.clock.now_ms();
        let code = link_code(&server, first.token).await;
        assert_eq!(code.expires_at, (now + TEN_MINUTES_MS) as u64);
        assert!(
            code.code.len() == 11 && code.code.as_bytes()[5] == b'-',
            "{}",
            code.code
        );
        // Typed back in lower case without the dash.
        let typed = code.code.replace('-', "").to_lowercase();
        let key = Uuid::new_v4().to_string();
        server.clock.set(now + 1);
        let second = joined(&server, join(&typed, &key)).await;
        assert_eq!(second.player_id, first.player_id);
        assert_ne!(second.token, first.token);
        assert_eq!(second.profile, first.profile);
        assert_eq!(me(&server, second.token).await.player_id, first.player_id);
        // The lost answer is resent (the code typed as shown): the same device and token.
        assert_eq!(joined(&server, join(&code.code, &key)).await, second);
        assert_error(
            server.send(join("ZZZZZ-ZZZZZ", &key)).await,
            422,
            "IDEMPOTENCY_KEY_REUSED",
        )
        .await;

        // Both devices list both, oldest first, each marking itself.
        let listed = devices(&server, first.token).await.devices;
        assert_eq!(listed.len(), 2);
        assert_eq!(listed[0].label, "Browser");
        assert_eq!(listed[1].label, "Firefox on Linux");
        assert!(listed[0].current && !listed[1].current);
        let from_second = devices(&server, second.token).await.devices;
        assert!(!from_second[0].current && from_second[1].current);

        // The code was single use.
        assert_error(
            server
                .send(join(&code.code, &Uuid::new_v4().to_string()))
                .await,
            422,
            "LINK_CODE_INVALID",
        )
        .await;
        assert_eq!(server.count_rows("devices").await, 2);
        // A key is required.
        let code = link_code(&server, first.token).await;
        let mut keyless = join(&code.code, "x");
        keyless.headers_mut().remove(IDEMPOTENCY_KEY_HEADER);
        assert_error(server.send(keyless).await, 400, "IDEMPOTENCY_KEY_REQUIRED").await;
    }
}

#[tokio::test]
async fn a_code_lives_ten_minutes() {
    let test = "a_code_lives_ten_minutes";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = server.create_save().await;
        let start = server.clock.now_ms();
        let late = link_code(&server, save.token).await;
        let in_time = link_code(&server, save.token).await;
        server.clock.set(start + TEN_MINUTES_MS - 1);
        joined(&server, join(&in_time.code, &Uuid::new_v4().to_string())).await;
        server.clock.set(start + TEN_MINUTES_MS);
        let expired = server
            .send(join(&late.code, &Uuid::new_v4().to_string()))
            .await;
        let body = assert_error(expired, 422, "LINK_CODE_INVALID").await;
        // The same words for unknown, used and expired codes.
        let unknown = server
            .send(join("00000-00000", &Uuid::new_v4().to_string()))
            .await;
        let unknown = assert_error(unknown, 422, "LINK_CODE_INVALID").await;
        assert_eq!(body["error"]["message"], unknown["error"]["message"]);
    }
}

#[tokio::test]
async fn guessing_codes_is_rate_limited_per_address() {
    let test = "guessing_codes_is_rate_limited_per_address";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = server.create_save().await;
        let code = link_code(&server, save.token).await;
        let guesser = SocketAddr::from(([127, 0, 0, 2], 40_000));
        for guess in 0..10 {
            let wrong = join(&format!("{guess:05}-00000"), &Uuid::new_v4().to_string());
            assert_error(
                server.send_from(guesser, wrong).await,
                422,
                "LINK_CODE_INVALID",
            )
            .await;
        }
        // Past the budget even the right code is refused, so a guess learns nothing.
        let right = join(&code.code, &Uuid::new_v4().to_string());
        let refused = server.send_from(guesser, right).await;
        assert_eq!(header(&refused, "retry-after"), "60");
        assert_error(refused, 429, "RATE_LIMITED").await;
        // Another address still links with it.
        joined(&server, join(&code.code, &Uuid::new_v4().to_string())).await;
    }
}

#[tokio::test]
async fn a_revoked_devices_token_is_refused_at_once() {
    let test = "a_revoked_devices_token_is_refused_at_once";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let first = server.create_save().await;
        let code = link_code(&server, first.token).await;
        let second = joined(&server, join(&code.code, &Uuid::new_v4().to_string())).await;
        // Used just before, so its token is in the server's cache.
        me(&server, second.token).await;
        let listed = devices(&server, first.token).await.devices;
        let second_id = listed.iter().find(|d| !d.current).unwrap().id.to_string();
        let response = server.send(revoke(&second_id, first.token)).await;
        assert_eq!(response.status(), 204);
        let refused = get_as(&server, "/api/saves/me", second.token).await;
        assert_error(refused, 401, "UNAUTHORIZED").await;
        me(&server, first.token).await;
        assert_eq!(devices(&server, first.token).await.devices.len(), 1);

        // Again, another player's device, an unknown id, not an id: 404.
        let other = server.create_save().await;
        let others_id = devices(&server, other.token).await.devices[0]
            .id
            .to_string();
        for id in [second_id, others_id, Uuid::new_v4().to_string(), "x".into()] {
            let response = server.send(revoke(&id, first.token)).await;
            assert_error(response, 404, "DEVICE_NOT_FOUND").await;
        }
        me(&server, other.token).await;
    }
}

#[tokio::test]
async fn linking_folds_the_old_save_into_one_row_per_mode() {
    let test = "linking_folds_the_old_save_into_one_row_per_mode";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let now = server.clock.now_ms();
        let target = server.create_save().await;
        let joining = server.create_save().await;
        let best = words_game(1, 80, now);
        let lower = words_game(2, 40, now);
        let timed = played_game(Mode::Time, 3, 50, now);
        submit(&server, target.token, &best).await;
        submit(&server, joining.token, &lower).await;
        submit(&server, joining.token, &timed).await;
        assert_eq!(server.count_rows("scores").await, 3);

        let code = link_code(&server, target.token).await;
        let request = with_token(join(&code.code, &Uuid::new_v4().to_string()), joining.token);
        let linked = joined(&server, request).await;
        assert_eq!(linked.player_id, target.player_id);

        // One row per (player, mode), all time and weekly; the better value kept.
        assert_eq!(server.count_rows("players").await, 1);
        assert_eq!(server.count_rows("scores").await, 2);
        assert_eq!(server.count_rows("weekly_scores").await, 2);
        let bests = me(&server, target.token).await.bests;
        let value = |mode: Mode| bests.iter().find(|best| best.mode == mode).unwrap();
        assert_eq!(value(Mode::Words).alltime, best["value"].as_i64().unwrap());
        assert_eq!(value(Mode::Time).alltime, timed["value"].as_i64().unwrap());
        assert_eq!(value(Mode::Time).weekly, timed["value"].as_i64());
        let board = leaderboard(&server, "mode=time&board=weekly", None).await;
        assert_eq!(board.entries.len(), 1);
        assert_eq!(board.entries[0].display_name, target.profile.display_name);

        // The old save is gone; a resend of its game by the new token is a replay.
        let gone = get_as(&server, "/api/saves/me", joining.token).await;
        assert_error(gone, 401, "UNAUTHORIZED").await;
        let replay = submit(&server, linked.token, &lower).await;
        assert!(!replay.improved);
        assert_eq!(replay.best, best["value"].as_i64().unwrap());
        assert_eq!(devices(&server, target.token).await.devices.len(), 2);
        server.assert_rank_counts_exact().await;
    }
}
