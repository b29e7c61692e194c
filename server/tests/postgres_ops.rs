//! PostgreSQL as operated for real: TLS to the database, its Unix socket, statement
//! timeouts and an unreachable database answered as 503 (and not ready), and a
//! restore with `pg_dump`/`pg_restore` after which no token the restored database
//! lacks works.
//! Run through `scripts/with-postgres.sh`; in CI a missing cluster fails these tests.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, admin, assert_error, body_json, header, post_json,
    postgres_admin_url, with_token, words_game,
};
use keydo_server::store::{Location, Store, StoreOptions};
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;
use uuid::Uuid;

fn options(admin_url: String, store: StoreOptions) -> Options {
    Options {
        postgres_admin_url: Some(admin_url),
        store,
        ..Options::default()
    }
}

fn quick_timeouts() -> StoreOptions {
    StoreOptions {
        database_timeout: Duration::from_secs(1),
        pool_wait: Duration::from_secs(1),
        ..StoreOptions::default()
    }
}

/// Runs `statement` as the superuser, on a thread of its own (the synchronous client
/// cannot run on the test's async runtime).
fn admin_statement(admin_url: &str, statement: String) {
    let admin_url = admin_url.to_owned();
    std::thread::spawn(move || admin(&admin_url, &statement))
        .join()
        .unwrap();
}

/// Runs `query` (one integer result) on the test PostgreSQL as its superuser.
fn admin_count(admin_url: &str, query: &str, database: &str) -> i64 {
    let (admin_url, query, database) =
        (admin_url.to_owned(), query.to_owned(), database.to_owned());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&admin_url, postgres::NoTls).unwrap();
        client.query_one(&query, &[&database]).unwrap().get(0)
    })
    .join()
    .unwrap()
}

/// A real `words` game on `seed` (the same seed, the same game and value).
fn a_game(seed: u64) -> serde_json::Value {
    words_game(seed, 80, MONDAY_2026_11_30_UTC8)
}

/// Records a game on `seed` through `server` (so its pool has connected) and returns
/// the name of the server's database.
async fn a_game_recorded(server: &TestServer, seed: u64) -> String {
    let save = server.create_save().await;
    let response = server
        .send(with_token(
            post_json("/api/scores", &a_game(seed)),
            save.token,
        ))
        .await;
    assert_eq!(response.status(), 200);
    server.postgres_database().to_owned()
}

fn database_url(server: &TestServer) -> String {
    match &server.location {
        Location::Postgres(url) => url.clone(),
        Location::Sqlite(_) => unreachable!("a PostgreSQL test"),
    }
}

#[tokio::test]
async fn sslmode_require_connects_over_tls() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let server = TestServer::start(Options {
        postgres_url_suffix: "?sslmode=require".into(),
        ..options(admin_url.clone(), StoreOptions::default())
    })
    .await;
    let database = a_game_recorded(&server, 300).await;
    let over_tls = admin_count(
        &admin_url,
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
         WHERE a.datname = $1 AND s.ssl",
        &database,
    );
    let in_clear = admin_count(
        &admin_url,
        "SELECT count(*) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid)
         WHERE a.datname = $1 AND NOT s.ssl",
        &database,
    );
    assert!(over_tls >= 1, "no TLS connection to {database}");
    assert_eq!(in_clear, 0);
}

/// docs/operations.md's advice for a database on the same host: the URL names the
/// socket's directory, and the default `sslmode` (prefer) connects there without TLS.
#[tokio::test]
async fn the_same_hosts_database_is_reached_over_its_unix_socket() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let server = TestServer::start(Options {
        postgres_over_socket: true,
        ..options(admin_url.clone(), StoreOptions::default())
    })
    .await;
    assert!(
        database_url(&server).contains("%2F"),
        "{}",
        database_url(&server)
    );
    let database = a_game_recorded(&server, 301).await;
    // A Unix socket's session has no client address.
    let over_socket = admin_count(
        &admin_url,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND client_addr IS NULL
           AND backend_type = 'client backend'",
        &database,
    );
    let over_tcp = admin_count(
        &admin_url,
        "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND client_addr IS NOT NULL",
        &database,
    );
    assert!(
        over_socket >= 1,
        "no connection to {database} over the socket"
    );
    assert_eq!(over_tcp, 0);
}

#[tokio::test]
async fn with_a_ca_file_the_database_certificate_is_verified() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let ca =
        PathBuf::from(std::env::var("KEYDO_TEST_POSTGRES_CA").expect("set by with-postgres.sh"));
    let verified = StoreOptions {
        database_ca_file: Some(ca),
        ..StoreOptions::default()
    };
    let server = TestServer::start(Options {
        postgres_url_suffix: "?sslmode=require".into(),
        ..options(admin_url.clone(), verified)
    })
    .await;
    assert_eq!(server.get("/api/ready").await.status(), 200);

    // Another authority: the database's certificate does not chain to it.
    let dir = tempfile::TempDir::new().unwrap();
    let status = Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args([
            "-subj",
            "/CN=another CA",
            "-keyout",
            "k.pem",
            "-out",
            "ca.pem",
        ])
        .current_dir(dir.path())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let wrong = StoreOptions {
        database_ca_file: Some(dir.path().join("ca.pem")),
        ..quick_timeouts()
    };
    let location = Location::Postgres(format!("{admin_url}?sslmode=require"));
    let refused =
        tokio::task::spawn_blocking(move || Store::open_with(&location, &wrong).map(drop))
            .await
            .unwrap();
    assert!(
        refused.is_err(),
        "a certificate from an unknown authority was accepted"
    );
}

#[tokio::test]
async fn a_statement_over_the_timeout_is_503_database_unavailable() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let server = TestServer::start(options(admin_url.clone(), quick_timeouts())).await;
    let save = server.create_save().await;
    // Another session holds the scores table locked; the write waits on it.
    let url = database_url(&server);
    let (locked, lock_taken) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holder = std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        let mut transaction = client.transaction().unwrap();
        transaction
            .batch_execute("LOCK TABLE scores IN ACCESS EXCLUSIVE MODE")
            .unwrap();
        locked.send(()).unwrap();
        released.recv().unwrap();
        transaction.rollback().unwrap();
    });
    lock_taken.recv().unwrap();
    let response = server
        .send(with_token(
            post_json("/api/scores", &a_game(300)),
            save.token,
        ))
        .await;
    assert_eq!(header(&response, "retry-after"), "5");
    assert_error(response, 503, "DATABASE_UNAVAILABLE").await;
    release.send(()).unwrap();
    holder.join().unwrap();
    let retried = server
        .send(with_token(
            post_json("/api/scores", &a_game(300)),
            save.token,
        ))
        .await;
    assert_eq!(retried.status(), 200);
}

#[tokio::test]
async fn a_database_that_is_gone_is_503_and_not_ready() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let server = TestServer::start(options(admin_url.clone(), quick_timeouts())).await;
    let save = server.create_save().await;
    assert_eq!(server.get("/api/ready").await.status(), 200);
    let database = server.postgres_database().to_owned();
    admin_statement(
        &admin_url,
        format!("ALTER DATABASE {database} ALLOW_CONNECTIONS false"),
    );
    admin_statement(
        &admin_url,
        format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}'"
        ),
    );
    let score = with_token(post_json("/api/scores", &a_game(300)), save.token);
    let board = Request::get("/api/leaderboard?mode=words&board=alltime")
        .body(Body::empty())
        .unwrap();
    for (what, response) in [
        ("ready", server.get("/api/ready").await),
        ("health", server.get("/api/health").await),
        ("score", server.send(score).await),
        ("leaderboard", server.send(board).await),
    ] {
        assert_eq!(response.status(), 503, "{what}");
        assert_eq!(header(&response, "retry-after"), "5", "{what}");
        assert_error(response, 503, "DATABASE_UNAVAILABLE").await;
    }
    admin_statement(
        &admin_url,
        format!("ALTER DATABASE {database} ALLOW_CONNECTIONS true"),
    );
    assert_eq!(
        server.get("/api/ready").await.status(),
        200,
        "ready again once back"
    );
}

/// The documented restore (`pg_dump --format=custom`, `pg_restore --clean`), here
/// while the server keeps running: within the token cache's lifetime every save the
/// restored database lacks is refused, and everything in the dump is there.
#[tokio::test]
async fn after_a_restore_tokens_the_database_lacks_are_401() {
    let Some(admin_url) = postgres_admin_url() else {
        return;
    };
    let token_ttl = Duration::from_millis(500);
    let server = TestServer::start(options(
        admin_url,
        StoreOptions {
            token_ttl,
            ..StoreOptions::default()
        },
    ))
    .await;
    let bin =
        PathBuf::from(std::env::var("KEYDO_TEST_POSTGRES_BIN").expect("set by with-postgres.sh"));
    let url = database_url(&server);
    let dir = tempfile::TempDir::new().unwrap();
    let dump = dir.path().join("keydo.dump");

    let kept = server.create_save().await;
    let kept_score = server
        .send(with_token(
            post_json("/api/scores", &a_game(300)),
            kept.token,
        ))
        .await;
    assert_eq!(kept_score.status(), 200);
    let status = Command::new(bin.join("pg_dump"))
        .args(["--format=custom", "--file"])
        .arg(&dump)
        .arg(&url)
        .status()
        .unwrap();
    assert!(status.success(), "pg_dump");

    let lost = server.create_save().await;
    let me = |token: Uuid| {
        with_token(
            Request::get("/api/saves/me").body(Body::empty()).unwrap(),
            token,
        )
    };
    assert_eq!(
        server.send(me(lost.token)).await.status(),
        200,
        "cached now"
    );
    assert_eq!(
        server
            .send(with_token(
                post_json("/api/scores", &a_game(400)),
                lost.token
            ))
            .await
            .status(),
        200
    );

    let status = Command::new(bin.join("pg_restore"))
        .args(["--clean", "--if-exists", "--no-owner", "--dbname"])
        .arg(&url)
        .arg(&dump)
        .status()
        .unwrap();
    assert!(status.success(), "pg_restore");

    tokio::time::sleep(token_ttl + Duration::from_millis(100)).await;
    assert_error(server.send(me(lost.token)).await, 401, "UNAUTHORIZED").await;
    let lost_score = server
        .send(with_token(
            post_json("/api/scores", &a_game(410)),
            lost.token,
        ))
        .await;
    assert_error(lost_score, 401, "UNAUTHORIZED").await;
    assert_eq!(server.send(me(kept.token)).await.status(), 200);
    let board = body_json(
        server
            .get("/api/leaderboard?mode=words&board=alltime")
            .await,
    )
    .await;
    let values: Vec<i64> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["value"].as_i64().unwrap())
        .collect();
    assert_eq!(
        values,
        [common::value_of(&a_game(300))],
        "the board is the dump's"
    );
}
