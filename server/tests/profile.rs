//! `PATCH /api/saves/me` and `POST /api/saves/me/operations`: profile operations, each applied once per `Idempotency-Key`,
//! a stale one settled field by field by its policy, on every database
//! (docs/api.md, "Profile").

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::scenarios::me;
use common::{
    Options, TestServer, assert_error, body_json, client_addr, post_json, with_token, words_game,
};
use keydo_core::api::{IDEMPOTENCY_KEY_HEADER, ProfileAnswer, ProfileAnswers, SaveCreated};
use keydo_core::profile::OPERATIONS_PER_REQUEST;
use keydo_server::clock::Clock;
use keydo_server::store::KeyedOperation;
use serde_json::{Value, json};
use tower::ServiceExt;
use uuid::Uuid;

fn patch(token: Uuid, key: Option<&str>, body: &Value) -> Request<Body> {
    let mut request = Request::patch("/api/saves/me")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::AUTHORIZATION, format!("Bearer {token}"));
    if let Some(key) = key {
        request = request.header(IDEMPOTENCY_KEY_HEADER, key);
    }
    request.body(Body::from(body.to_string())).unwrap()
}

fn operation(base_version: i64, base: Value, changes: Value, changed_at: u64) -> Value {
    json!({ "baseVersion": base_version, "base": base, "changes": changes, "changedAt": changed_at })
}

/// Sends the operation under a fresh key and expects 200.
async fn apply(server: &TestServer, token: Uuid, body: &Value) -> ProfileAnswer {
    apply_with(server, token, &Uuid::new_v4().to_string(), body).await
}

async fn apply_with(server: &TestServer, token: Uuid, key: &str, body: &Value) -> ProfileAnswer {
    let response = server.send(patch(token, Some(key), body)).await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

async fn named_save(server: &TestServer, name: &str) -> SaveCreated {
    let response = server
        .send(post_json("/api/saves", &json!({ "displayName": name })))
        .await;
    assert_eq!(response.status(), 201);
    serde_json::from_value(body_json(response).await).unwrap()
}

fn conflicts(answer: &ProfileAnswer) -> Value {
    serde_json::to_value(&answer.conflicts).unwrap()
}

#[tokio::test]
async fn a_replay_gets_the_stored_answer_and_applies_once() {
    let test = "a_replay_gets_the_stored_answer_and_applies_once";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let creation_key = Uuid::new_v4().to_string();
        let create = || {
            let mut request = post_json("/api/saves", &json!({ "displayName": "Ann" }));
            request
                .headers_mut()
                .insert(IDEMPOTENCY_KEY_HEADER, creation_key.parse().unwrap());
            request
        };
        let response = server.send(create()).await;
        assert_eq!(response.status(), 201);
        let save: SaveCreated = serde_json::from_value(body_json(response).await).unwrap();
        let key = Uuid::new_v4().to_string();
        let dark = operation(
            1,
            json!({ "settings": { "theme": "system" } }),
            json!({ "settings": { "theme": "dark" } }),
            1_000,
        );
        let first = apply_with(&server, save.token, &key, &dark).await;
        assert_eq!(first.version, 2);
        assert_eq!(first.profile.settings.theme.id(), "dark");
        assert!(first.conflicts.is_empty());
        // The answer was lost; the resend (key in upper case) gets it again, applied once.
        let again = apply_with(&server, save.token, &key.to_uppercase(), &dark).await;
        assert_eq!(again, first);
        assert_eq!(me(&server, save.token).await.version, 2);
        assert_eq!(server.count_rows("profile_operations").await, 1);

        // The same key with another body changes nothing.
        let light = operation(
            1,
            json!({ "settings": { "theme": "system" } }),
            json!({ "settings": { "theme": "light" } }),
            1_000,
        );
        let reused = server.send(patch(save.token, Some(&key), &light)).await;
        assert_error(reused, 422, "IDEMPOTENCY_KEY_REUSED").await;
        let shown = me(&server, save.token).await;
        assert_eq!((shown.version, &shown.profile), (2, &first.profile));

        // A resend of the creation shows the stored profile too.
        let response = server.send(create()).await;
        assert_eq!(response.status(), 201);
        let again: SaveCreated = serde_json::from_value(body_json(response).await).unwrap();
        assert_eq!((again.token, again.version), (save.token, 2));
        assert_eq!(again.profile.settings.theme.id(), "dark");
    }
}

#[tokio::test]
async fn a_key_is_kept_a_day_and_then_forgotten() {
    let test = "a_key_is_kept_a_day_and_then_forgotten";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = named_save(&server, "Ann").await;
        let key = Uuid::new_v4().to_string();
        let sound = operation(
            1,
            json!({ "settings": { "sound": false } }),
            json!({ "settings": { "sound": true } }),
            1,
        );
        let first = apply_with(&server, save.token, &key, &sound).await;
        let start = server.clock.now_ms();
        server.clock.set(start + 24 * 3_600_000);
        assert_eq!(apply_with(&server, save.token, &key, &sound).await, first);
        // Past the day the key is free: the same body is a new operation, which finds
        // its change already made (the version stays), and the old record is replaced.
        server.clock.set(start + 24 * 3_600_000 + 1);
        let later = apply_with(&server, save.token, &key, &sound).await;
        assert_eq!(later.version, first.version);
        assert_eq!(server.count_rows("profile_operations").await, 1);
    }
}

#[tokio::test]
async fn stale_operations_follow_each_fields_policy() {
    let test = "stale_operations_follow_each_fields_policy";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = named_save(&server, "Ann").await;
        let token = save.token;
        let now = server.clock.now_ms();
        let response = server
            .send(with_token(
                post_json("/api/scores", &words_game(7, 60, now)),
                token,
            ))
            .await;
        assert_eq!(response.status(), 200);
        let name = |from: &str, to: &str, at| {
            operation(
                1,
                json!({ "displayName": from }),
                json!({ "displayName": to }),
                at,
            )
        };

        // client-wins-if-newer: one device renames at t=1000 ...
        let renamed = apply(&server, token, &name("Ann", "Bea", 1_000)).await;
        assert_eq!(
            (renamed.version, renamed.profile.display_name.as_str()),
            (2, "Bea")
        );
        // ... another, stale, renamed at the same time: equal keeps the server's.
        let equal = apply(&server, token, &name("Ann", "Cy", 1_000)).await;
        assert_eq!(equal.profile.display_name, "Bea");
        assert_eq!(equal.version, 2);
        assert_eq!(
            conflicts(&equal),
            json!([{ "field": "displayName", "policy": "client-wins-if-newer", "kept": "server", "by": "player" }])
        );
        // Strictly later wins.
        let later = apply(&server, token, &name("Ann", "Cy", 1_001)).await;
        assert_eq!(
            (later.version, later.profile.display_name.as_str()),
            (3, "Cy")
        );
        assert_eq!(conflicts(&later)[0]["kept"], "yours");
        // The leaderboard shows the current name.
        let board = body_json(
            server
                .get("/api/leaderboard?mode=words&board=alltime")
                .await,
        )
        .await;
        assert_eq!(board["entries"][0]["displayName"], "Cy");

        // merge-disjoint: a change to the theme, then a stale one to the font size
        // (made earlier, on another device): both stand, no conflict.
        let theme = |from: &str, to: &str, at| {
            operation(
                1,
                json!({ "settings": { "theme": from } }),
                json!({ "settings": { "theme": to } }),
                at,
            )
        };
        let dark = apply(&server, token, &theme("system", "dark", 2_000)).await;
        let font = apply(
            &server,
            token,
            &operation(
                1,
                json!({ "settings": { "fontSize": 20 } }),
                json!({ "settings": { "fontSize": 24 } }),
                1_500,
            ),
        )
        .await;
        assert!(font.conflicts.is_empty());
        assert_eq!(font.version, dark.version + 1);
        assert_eq!(
            (
                font.profile.settings.theme.id(),
                font.profile.settings.font_size
            ),
            ("dark", 24)
        );
        // Overlap falls back to the later change: earlier loses, later wins.
        let earlier = apply(&server, token, &theme("system", "light", 1_999)).await;
        assert_eq!(earlier.profile.settings.theme.id(), "dark");
        assert_eq!(
            conflicts(&earlier),
            json!([{ "field": "theme", "policy": "merge-disjoint", "kept": "server", "by": "player" }])
        );
        let newer = apply(&server, token, &theme("system", "light", 2_001)).await;
        assert_eq!(newer.profile.settings.theme.id(), "light");
        assert_eq!(newer.profile.settings.font_size, 24);
        let shown = me(&server, token).await;
        assert_eq!(
            (shown.version, shown.profile),
            (newer.version, newer.profile)
        );
    }
}

#[tokio::test]
async fn an_operators_name_wins_over_changes_made_before_it() {
    let test = "an_operators_name_wins_over_changes_made_before_it";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = named_save(&server, "Rude Name").await;
        let store = server.own_store().await;
        let (name, version) =
            keydo_server::names::reset(&store, save.player_id, Some("Moderated"), 5_000)
                .await
                .unwrap();
        assert_eq!((name.as_str(), version), ("Moderated", 2));
        // A rename queued offline before the reset, even made later by its clock.
        let stale = operation(
            1,
            json!({ "displayName": "Rude Name" }),
            json!({ "displayName": "Ruder Name" }),
            9_000,
        );
        let answer = apply(&server, save.token, &stale).await;
        assert_eq!(answer.profile.display_name, "Moderated");
        assert_eq!(answer.version, 2);
        assert_eq!(
            conflicts(&answer),
            json!([{ "field": "displayName", "policy": "server-wins", "kept": "server", "by": "operator" }])
        );
        // A rename made after seeing the reset applies.
        let seen = operation(
            2,
            json!({ "displayName": "Moderated" }),
            json!({ "displayName": "Polite Name" }),
            9_001,
        );
        let renamed = apply(&server, save.token, &seen).await;
        assert_eq!(
            (renamed.version, renamed.profile.display_name.as_str()),
            (3, "Polite Name")
        );
        assert!(renamed.conflicts.is_empty());
    }
}

#[tokio::test]
async fn refused_operations_have_stable_codes_and_change_nothing() {
    let test = "refused_operations_have_stable_codes_and_change_nothing";
    for server in TestServer::on_every_database(test, Options::default()).await {
        named_save(&server, "Taken").await;
        let save = named_save(&server, "Ann").await;
        let token = save.token;
        let settings = |base: Value, changes: Value| {
            operation(
                1,
                json!({ "settings": base }),
                json!({ "settings": changes }),
                1,
            )
        };
        let font = settings(json!({ "fontSize": 20 }), json!({ "fontSize": 24 }));
        let key = Uuid::new_v4().to_string();
        assert_error(
            server.send(patch(token, None, &font)).await,
            400,
            "IDEMPOTENCY_KEY_REQUIRED",
        )
        .await;
        assert_error(
            server.send(patch(token, Some("not-a-uuid"), &font)).await,
            400,
            "INVALID_IDEMPOTENCY_KEY",
        )
        .await;
        let refused = [
            (
                operation(
                    1,
                    json!({ "displayName": "Ann" }),
                    json!({ "displayName": "a\u{202e}b" }),
                    1,
                ),
                "INVALID_DISPLAY_NAME",
            ),
            (
                operation(
                    1,
                    json!({ "displayName": "Ann" }),
                    json!({ "displayName": "TAKEN" }),
                    1,
                ),
                "NAME_TAKEN",
            ),
            (
                settings(json!({ "fontSize": 20 }), json!({ "fontSize": 40 })),
                "INVALID_SETTING",
            ),
            (
                settings(
                    json!({ "inputMethod": "" }),
                    json!({ "inputMethod": "五".repeat(17) }),
                ),
                "INVALID_SETTING",
            ),
            (operation(1, json!({}), json!({}), 1), "INVALID_BODY"),
            (
                settings(json!({ "theme": "system" }), json!({ "fontSize": 24 })),
                "INVALID_BODY",
            ),
            (
                settings(
                    json!({ "fontSize": 20 }),
                    json!({ "fontSize": 24, "colour": 1 }),
                ),
                "INVALID_BODY",
            ),
        ];
        for (body, code) in refused {
            assert_error(
                server.send(patch(token, Some(&key), &body)).await,
                422,
                code,
            )
            .await;
        }
        // Nothing changed, and the refusals left the key unused.
        assert_eq!(me(&server, token).await.version, 1);
        assert_eq!(apply_with(&server, token, &key, &font).await.version, 2);
        // Without a token: 401.
        let anonymous = Request::patch("/api/saves/me")
            .header(header::CONTENT_TYPE, "application/json")
            .header(IDEMPOTENCY_KEY_HEADER, Uuid::new_v4().to_string())
            .body(Body::from(font.to_string()))
            .unwrap();
        assert_error(server.send(anonymous).await, 401, "UNAUTHORIZED").await;
    }
}

/// 20 concurrent requests with one key through the API, and 20 more straight to the
/// database (as from several server processes, without the in-process turns): each
/// batch applies once and every answer is the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_operations_with_one_key_apply_once() {
    let test = "concurrent_operations_with_one_key_apply_once";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = named_save(&server, "Ann").await;
        let key = Uuid::new_v4().to_string();
        let body = operation(
            1,
            json!({ "settings": { "caret": "line" } }),
            json!({ "settings": { "caret": "block" } }),
            1,
        );
        let answers = futures_util::future::join_all((0..20).map(|_| {
            let (app, request) = (
                server.app_from(client_addr()),
                patch(save.token, Some(&key), &body),
            );
            tokio::spawn(async move {
                let response = app.oneshot(request).await.unwrap();
                (response.status().as_u16(), body_json(response).await)
            })
        }))
        .await;
        for answer in &answers {
            let answer = answer.as_ref().unwrap();
            assert_eq!(answer.0, 200);
            assert_eq!(answer.1["version"], 2, "{}", answer.1);
        }
        assert_eq!(me(&server, save.token).await.version, 2);

        let stores = [server.own_store().await, server.own_store().await];
        let operation: keydo_core::profile::ProfileOperation = serde_json::from_value(operation(
            2,
            json!({ "settings": { "sound": false } }),
            json!({ "settings": { "sound": true } }),
            2,
        ))
        .unwrap();
        let outcomes = futures_util::future::join_all((0..20).map(|n| {
            let (store, operation) = (stores[n % 2].clone(), operation.clone());
            let player = save.player_id;
            tokio::spawn(async move {
                let keyed = KeyedOperation {
                    key_sha256: "k".repeat(64),
                    request_sha256: "r".repeat(64),
                    operation,
                };
                store
                    .apply_operations(player, vec![keyed], 10, 0)
                    .await
                    .unwrap()
            })
        }))
        .await;
        let first = outcomes[0].as_ref().unwrap();
        for outcome in &outcomes {
            assert_eq!(outcome.as_ref().unwrap(), first);
        }
        let shown = me(&server, save.token).await;
        assert_eq!(shown.version, 3);
        assert!(shown.profile.settings.sound);
    }
}

fn post_operations(token: Uuid, operations: &[(Uuid, Value)]) -> Request<Body> {
    let operations: Vec<Value> = operations
        .iter()
        .map(|(key, operation)| json!({ "idempotencyKey": key, "operation": operation }))
        .collect();
    let request = post_json(
        "/api/saves/me/operations",
        &json!({ "operations": operations }),
    );
    with_token(request, token)
}

async fn answers(server: &TestServer, request: Request<Body>) -> Vec<ProfileAnswer> {
    let response = server.send(request).await;
    assert_eq!(response.status(), 200);
    let body: ProfileAnswers = serde_json::from_value(body_json(response).await).unwrap();
    body.answers
}

#[tokio::test]
async fn operations_sent_together_apply_in_order_and_stop_at_the_first_refused() {
    let test = "operations_sent_together_apply_in_order_and_stop_at_the_first_refused";
    for server in TestServer::on_every_database(test, Options::default()).await {
        named_save(&server, "Bob").await;
        let save = named_save(&server, "Ann").await;
        let keys: Vec<Uuid> = (0..4).map(|_| Uuid::new_v4()).collect();
        let line = [
            (
                keys[0],
                operation(
                    1,
                    json!({ "settings": { "theme": "system" } }),
                    json!({ "settings": { "theme": "dark" } }),
                    1,
                ),
            ),
            (
                keys[1],
                operation(
                    1,
                    json!({ "settings": { "fontSize": 20 } }),
                    json!({ "settings": { "fontSize": 18 } }),
                    2,
                ),
            ),
            (
                keys[2],
                operation(
                    1,
                    json!({ "displayName": "Ann" }),
                    json!({ "displayName": "Bob" }),
                    3,
                ),
            ),
            (
                keys[3],
                operation(
                    1,
                    json!({ "settings": { "sound": false } }),
                    json!({ "settings": { "sound": true } }),
                    4,
                ),
            ),
        ];
        // The first two apply, in order; the third is refused, so the fourth waits.
        let first = answers(&server, post_operations(save.token, &line)).await;
        assert_eq!(first.iter().map(|a| a.version).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(first[1].profile.settings.theme.id(), "dark");
        assert_eq!(first[1].profile.settings.font_size, 18);
        let shown = me(&server, save.token).await;
        assert_eq!((shown.version, shown.profile.settings.sound), (3, false));
        // Sent first, the refused one gets its refusal, and nothing after it applies.
        let refused = server.send(post_operations(save.token, &line[2..])).await;
        assert_error(refused, 422, "NAME_TAKEN").await;
        assert_eq!(me(&server, save.token).await.version, 3);
        // A resend of answered operations is answered from the records, whether it
        // comes together or one by one; nothing applies twice.
        assert_eq!(
            answers(&server, post_operations(save.token, &line[..2])).await,
            first
        );
        let key = keys[1].to_string();
        assert_eq!(
            apply_with(&server, save.token, &key, &line[1].1).await,
            first[1]
        );
        assert_eq!(server.count_rows("profile_operations").await, 2);
        // The last goes once the player's line moves past the refused one.
        let last = answers(&server, post_operations(save.token, &line[3..])).await;
        assert_eq!((last[0].version, last[0].profile.settings.sound), (4, true));
    }
}

#[tokio::test]
async fn a_request_carries_one_to_sixteen_operations() {
    let test = "a_request_carries_one_to_sixteen_operations";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let save = named_save(&server, "Ann").await;
        let sound = operation(
            1,
            json!({ "settings": { "sound": false } }),
            json!({ "settings": { "sound": true } }),
            1,
        );
        let none = server.send(post_operations(save.token, &[])).await;
        assert_error(none, 422, "INVALID_BODY").await;
        let many: Vec<(Uuid, Value)> = (0..=OPERATIONS_PER_REQUEST)
            .map(|_| (Uuid::new_v4(), sound.clone()))
            .collect();
        let too_many = server.send(post_operations(save.token, &many)).await;
        assert_error(too_many, 422, "INVALID_BODY").await;
        assert_eq!(me(&server, save.token).await.version, 1, "nothing applied");
        let answered = answers(
            &server,
            post_operations(save.token, &many[..OPERATIONS_PER_REQUEST]),
        )
        .await;
        // The first sets the sound; the same change again finds it made.
        assert_eq!(answered.len(), OPERATIONS_PER_REQUEST);
        assert!(answered.iter().all(|answer| answer.version == 2));
        // An invalid operation ends the request like a refused one.
        let huge = operation(
            2,
            json!({ "settings": { "fontSize": 20 } }),
            json!({ "settings": { "fontSize": 99 } }),
            2,
        );
        let caret = operation(
            2,
            json!({ "settings": { "caret": "line" } }),
            json!({ "settings": { "caret": "block" } }),
            3,
        );
        let line = [(Uuid::new_v4(), caret), (Uuid::new_v4(), huge)];
        let answered = answers(&server, post_operations(save.token, &line)).await;
        assert_eq!(answered.len(), 1);
        assert_eq!(answered[0].version, 3);
        let invalid = server.send(post_operations(save.token, &line[1..])).await;
        assert_error(invalid, 422, "INVALID_SETTING").await;
        // One key twice in a request: its turn is taken once, and the second is
        // answered from the first's record.
        let theme = operation(
            3,
            json!({ "settings": { "theme": "system" } }),
            json!({ "settings": { "theme": "dark" } }),
            4,
        );
        let key = Uuid::new_v4();
        let twice = [(key, theme.clone()), (key, theme)];
        let answered = answers(&server, post_operations(save.token, &twice)).await;
        assert_eq!(answered.len(), 2);
        assert_eq!(answered[0], answered[1]);
        assert_eq!(answered[0].version, 4);
        let anonymous = server
            .send(post_json(
                "/api/saves/me/operations",
                &json!({ "operations": [] }),
            ))
            .await;
        assert_error(anonymous, 401, "UNAUTHORIZED").await;
    }
}
