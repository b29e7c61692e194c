//! `POST /api/saves` with an `Idempotency-Key`: a resend gets the same save, whatever
//! happened to the first answer, on every database.

mod common;

use axum::body::Body;
use axum::http::{Request, header};
use common::{Options, TestServer, assert_error, body_json, client_addr, limits};
use keydo_core::api::{IDEMPOTENCY_KEY_HEADER, SaveCreated};
use keydo_server::store::{Creation, KeyedCreation};
use keydo_server::store::{NewSave, Player, SaveCreation};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tower::ServiceExt;
use uuid::Uuid;

const DAY_MS: i64 = 24 * 60 * 60 * 1000;

fn create(key: &str, body: &str) -> Request<Body> {
    Request::post("/api/saves")
        .header(header::CONTENT_TYPE, "application/json")
        .header(IDEMPOTENCY_KEY_HEADER, key)
        .body(Body::from(body.to_owned()))
        .unwrap()
}

/// Sends and expects 201; the save's answer.
async fn created(server: &TestServer, request: Request<Body>) -> SaveCreated {
    let response = server.send(request).await;
    assert_eq!(response.status(), 201);
    serde_json::from_value(body_json(response).await).unwrap()
}

/// The default limit of two new saves per minute, with generous others.
fn default_save_limit() -> Options {
    Options {
        rate_limits: limits(1_000, 1_000, 2),
        ..Options::default()
    }
}

async fn status_of_me(server: &TestServer, token: Uuid) -> u16 {
    let request = Request::get("/api/saves/me")
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(Body::empty())
        .unwrap();
    server.send(request).await.status().as_u16()
}

#[tokio::test]
async fn a_resend_after_a_lost_answer_gets_the_same_save() {
    let test = "a_resend_after_a_lost_answer_gets_the_same_save";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let key = Uuid::new_v4().to_string();
        // The first answer is "lost": the client sends the same request again, with
        // the key's hex digits in another case and the body spaced differently.
        let first = created(&server, create(&key, r#"{"displayName":"Ann"}"#)).await;
        let again = created(
            &server,
            create(&key.to_uppercase(), "{ \"displayName\" : \"Ann\" }"),
        )
        .await;
        assert_eq!(again, first);
        assert_eq!(first.profile.display_name, "Ann");
        assert_eq!(status_of_me(&server, first.token).await, 200);
        assert_eq!(server.count_rows("players").await, 1);

        // A generated name is part of the answer, and replayed too.
        let other_key = Uuid::new_v4().to_string();
        let generated = created(&server, create(&other_key, "{}")).await;
        assert_eq!(created(&server, create(&other_key, "{}")).await, generated);
        assert_ne!(generated.player_id, first.player_id);

        // Without a key every request is a new save, as before.
        server.create_save().await;
        server.create_save().await;
        assert_eq!(server.count_rows("players").await, 4);
    }
}

#[tokio::test]
async fn the_same_key_with_another_body_is_422() {
    let test = "the_same_key_with_another_body_is_422";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let key = Uuid::new_v4().to_string();
        let first = created(&server, create(&key, "{}")).await;
        let reused = server.send(create(&key, r#"{"displayName":"Bob"}"#)).await;
        assert_error(reused, 422, "IDEMPOTENCY_KEY_REUSED").await;
        assert_eq!(created(&server, create(&key, "{}")).await, first);

        // A refused request leaves its key unused.
        let refused_key = Uuid::new_v4().to_string();
        let refused = server
            .send(create(
                &refused_key,
                &json!({ "displayName": "" }).to_string(),
            ))
            .await;
        assert_error(refused, 422, "INVALID_DISPLAY_NAME").await;
        let named = created(&server, create(&refused_key, r#"{"displayName":"Cy"}"#)).await;
        assert_eq!(named.profile.display_name, "Cy");
        // A replay still reads its body within the limits.
        let not_json = Request::post("/api/saves")
            .header(header::CONTENT_TYPE, "text/plain")
            .header(IDEMPOTENCY_KEY_HEADER, &key)
            .body(Body::from("{}"))
            .unwrap();
        assert_error(server.send(not_json).await, 415, "UNSUPPORTED_MEDIA_TYPE").await;
        assert_eq!(server.count_rows("players").await, 2);
    }
}

/// With the default limit of two new saves per minute: 50 concurrent requests with
/// one key make one save and all get its answer, and a replay is never refused by the
/// creation limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_concurrent_requests_with_one_key_make_one_save() {
    let test = "fifty_concurrent_requests_with_one_key_make_one_save";
    for server in TestServer::on_every_database(test, default_save_limit()).await {
        let key = Uuid::new_v4().to_string();
        let answers = futures_util::future::join_all((0..50).map(|_| {
            let (app, request) = (server.app_from(client_addr()), create(&key, "{}"));
            tokio::spawn(async move {
                let response = app.oneshot(request).await.unwrap();
                (response.status().as_u16(), body_json(response).await)
            })
        }))
        .await;
        let answers: Vec<(u16, Value)> = answers.into_iter().map(Result::unwrap).collect();
        for answer in &answers {
            assert_eq!(answer, &answers[0]);
        }
        assert_eq!(answers[0].0, 201);
        assert_eq!(server.count_rows("players").await, 1);

        // One creation slot was spent: one more save, then the limit.
        created(&server, create(&Uuid::new_v4().to_string(), "{}")).await;
        let over = server.send(create(&Uuid::new_v4().to_string(), "{}")).await;
        assert_error(over, 429, "RATE_LIMITED").await;
        // Over the limit, the first key still gets its save back.
        let again = created(&server, create(&key, "{}")).await;
        assert_eq!(serde_json::to_value(again).unwrap(), answers[0].1);
        assert_eq!(server.count_rows("players").await, 2);
    }
}

#[tokio::test]
async fn a_malformed_key_is_400_and_creates_nothing() {
    let test = "a_malformed_key_is_400_and_creates_nothing";
    for server in TestServer::on_every_database(test, default_save_limit()).await {
        for malformed in [
            "",
            "yes",
            "6f1c1f5e8a4e4b8e9d432f4c1d0b9a11",
            "{6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a11}",
            "6f1c1f5e-8a4e-4b8e-9d43-2f4c1d0b9a1z",
        ] {
            let response = server.send(create(malformed, "{}")).await;
            assert_error(response, 400, "INVALID_IDEMPOTENCY_KEY").await;
        }
        assert_eq!(server.count_rows("players").await, 0);
        // No creation slot was spent on them.
        for _ in 0..2 {
            created(&server, create(&Uuid::new_v4().to_string(), "{}")).await;
        }
    }
}

#[tokio::test]
async fn a_key_is_kept_a_day_and_old_keys_are_forgotten_a_few_at_a_time() {
    let test = "a_key_is_kept_a_day_and_old_keys_are_forgotten_a_few_at_a_time";
    for server in TestServer::on_every_database(test, Options::default()).await {
        use keydo_server::clock::Clock;
        let start = server.clock.now_ms();
        for _ in 0..5 {
            created(&server, create(&Uuid::new_v4().to_string(), "{}")).await;
        }
        server.clock.set(start + 1);
        let key = Uuid::new_v4().to_string();
        let first = created(&server, create(&key, "{}")).await;
        server.clock.set(start + 1 + DAY_MS);
        assert_eq!(created(&server, create(&key, "{}")).await, first);

        // A day and a millisecond later the key is free again: a new save.
        server.clock.set(start + 2 + DAY_MS);
        let later = created(&server, create(&key, "{}")).await;
        assert_ne!(later.player_id, first.player_id);
        assert_eq!(created(&server, create(&key, "{}")).await, later);
        // That creation replaced its own record and forgot the 4 oldest of the 5
        // others; the next one forgets the last.
        assert_eq!(server.count_rows("save_creations").await, 2);
        created(&server, create(&Uuid::new_v4().to_string(), "{}")).await;
        assert_eq!(server.count_rows("save_creations").await, 2);
        // The saves themselves stay.
        assert_eq!(server.count_rows("players").await, 8);
        assert_eq!(status_of_me(&server, first.token).await, 200);
    }
}

/// Neither the key nor the token is anywhere in the database files.
#[tokio::test]
async fn the_database_holds_neither_the_key_nor_the_token() {
    let server = TestServer::sqlite().await;
    let key = Uuid::new_v4();
    let save = created(&server, create(&key.to_string(), "{}")).await;
    let path = server.sqlite_path();
    let mut stored = std::fs::read(&path).unwrap();
    stored.extend(std::fs::read(path.with_extension("sqlite3-wal")).unwrap_or_default());
    assert!(stored.len() > 4096);
    for secret in [key, save.token] {
        for form in [
            secret.hyphenated().to_string().into_bytes(),
            secret.simple().to_string().into_bytes(),
            secret.as_bytes().to_vec(),
        ] {
            assert!(
                !stored.windows(form.len()).any(|window| window == form),
                "{secret} is stored"
            );
        }
    }
    let db = rusqlite::Connection::open(&path).unwrap();
    let key_sha256: String = db
        .query_row("SELECT key_sha256 FROM save_creations", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(key_sha256, hex::encode(Sha256::digest(key.to_string())));
}

fn new_save(n: usize, created_at: i64) -> NewSave {
    NewSave {
        player: Player {
            player_id: Uuid::from_u128(n as u128),
            display_name: format!("P{n}"),
            version: 1,
        },
        name_key: format!("name-{n}"),
        token_sha256: format!("token-{n}"),
        device_label: "Browser".into(),
        created_at,
    }
}

fn keyed(creation: SaveCreation, expired_before: i64) -> KeyedCreation {
    KeyedCreation {
        creation,
        expired_before,
    }
}

/// A record under `key_sha256` (any text stands in for the hashes here).
fn store_creation(key_sha256: String) -> SaveCreation {
    SaveCreation {
        key_sha256,
        request_sha256: "r".repeat(64),
        token_sealed: "00".repeat(16),
    }
}

/// Without the in-process turns (as with several servers on one PostgreSQL), the
/// database alone lets one of many concurrent creations with one key through.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creations_with_one_key_in_the_database_make_one_save() {
    let test = "concurrent_creations_with_one_key_in_the_database_make_one_save";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let store = server.own_store().await;
        let creation = store_creation("k".repeat(64));
        let attempts = (0..50).map(|n| {
            let (store, creation) = (store.clone(), creation.clone());
            tokio::spawn(async move {
                let outcome = store
                    .create_save(new_save(n, 1_000), Some(keyed(creation, 0)))
                    .await
                    .unwrap();
                (n, outcome)
            })
        });
        let outcomes: Vec<(usize, Creation)> = futures_util::future::join_all(attempts)
            .await
            .into_iter()
            .map(Result::unwrap)
            .collect();
        let winners: Vec<usize> = outcomes
            .iter()
            .filter(|(_, outcome)| *outcome == Creation::Created)
            .map(|(n, _)| *n)
            .collect();
        assert_eq!(winners.len(), 1, "{outcomes:?}");
        for (_, outcome) in &outcomes {
            if let Creation::Remembered(remembered) = outcome {
                assert_eq!(remembered.player_id, Uuid::from_u128(winners[0] as u128));
                assert_eq!(remembered.token_sealed, creation.token_sealed);
            }
        }
        assert_eq!(server.count_rows("players").await, 1);
    }
}

/// Many concurrent creations that each forget expired records all succeed: they take
/// the old rows in one order, so none waits for another in a cycle (PostgreSQL).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_creations_forget_old_keys_side_by_side() {
    let test = "concurrent_creations_forget_old_keys_side_by_side";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let store = server.own_store().await;
        let create = |n: usize, created_at: i64, expired_before: i64| {
            let (store, creation) = (store.clone(), store_creation(format!("{n:064}")));
            async move {
                store
                    .create_save(
                        new_save(n, created_at),
                        Some(keyed(creation, expired_before)),
                    )
                    .await
            }
        };
        for n in 0..40 {
            assert_eq!(create(n, 0, i64::MIN).await.unwrap(), Creation::Created);
        }
        let concurrent = (40..70).map(|n| tokio::spawn(create(n, DAY_MS, 1)));
        for outcome in futures_util::future::join_all(concurrent).await {
            assert_eq!(outcome.unwrap().unwrap(), Creation::Created);
        }
        assert_eq!(server.count_rows("players").await, 70);
        let left = server.count_rows("save_creations").await;
        assert!((30..40 + 30).contains(&left), "{left} records left");
        // Sequential creations drain what concurrency left.
        for n in 70..80 {
            create(n, DAY_MS, 1).await.unwrap();
        }
        assert_eq!(server.count_rows("save_creations").await, 40);
    }
}
