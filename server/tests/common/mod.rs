//! What every integration test builds: the real router around its own temporary
//! `dist/`, its own fresh database (SQLite by default, PostgreSQL on request) and a
//! clock it controls. Nothing is shared between tests.

#![allow(dead_code)] // each test binary uses its own part of these helpers

pub mod genda;
pub mod options;
pub mod scenarios;
pub mod wire;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, Response, header};
use keydo_core::api::SaveCreated;
use keydo_core::game::corpora::Corpora;
use keydo_core::verify::review::Thresholds;
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Mode, Seed};
use keydo_server::client::TrustedProxies;
use keydo_server::clock::Clock;
use keydo_server::connections::{self, ConnectionLimits};
use keydo_server::operator_token::OperatorToken;
use keydo_server::router;
use keydo_server::settings::{Alerts, RateLimits, Settings};
use keydo_server::state::AppState;
use keydo_server::store::{Gates, Location, Store, StoreOptions};
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;
use tempfile::TempDir;
use tower::ServiceExt;

/// Files of a small built shell: (path under dist, contents).
pub const SHELL: &[(&str, &str)] = &[
    ("index.html", "<!doctype html><title>KeyDo</title>"),
    ("sw.js", "importScripts('/keydo_worker.js');"),
    ("keydo_worker.js", "self.wasm_bindgen = {};"),
    ("keydo_worker_wasm.js", "self.KEYDO_WASM = '';"),
    ("keydo_worker_bg.wasm", "\0asm"),
    (
        "keydo-app-1a2b3c4d5e6f7a8b.js",
        "export default function init() {}",
    ),
    ("keydo-app-1a2b3c4d5e6f7a8b_bg.wasm", "\0asm\x01\0\0\0"),
    ("style-0123456789abcdef.css", "body { color: black; }"),
    ("manifest.webmanifest", "{\"name\": \"KeyDo\"}"),
    (
        "precache-manifest.json",
        "{\"cacheName\": \"keydo-precache-x\", \"files\": []}",
    ),
    ("icons/icon-192.png", "\u{89}PNG"),
    ("corpus/zh.txt", "键道"),
];

/// 2026-11-30 00:00 UTC+8, a Monday: where test clocks start unless told otherwise.
pub const MONDAY_2026_11_30_UTC8: i64 = 1_795_968_000_000;

/// A clock the test sets.
#[derive(Debug)]
pub struct ManualClock(AtomicI64);

impl ManualClock {
    pub fn set(&self, now_ms: i64) {
        self.0.store(now_ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// How a test wants its server.
#[derive(Debug, Clone)]
pub struct Options {
    pub rate_limits: RateLimits,
    pub public_origin: Option<String>,
    pub request_timeout: Duration,
    /// `None`: a fresh SQLite file; `Some(url)`: a fresh database on that PostgreSQL.
    pub postgres_admin_url: Option<String>,
    /// `None`: a temporary copy of [`SHELL`].
    pub dist: Option<PathBuf>,
    pub review: Thresholds,
    /// [`Gates::off`] unless a test wants the gates (forgery_places.rs): the other
    /// tests' fresh saves send results straight to the boards.
    pub gates: Gates,
    /// An existing SQLite file to serve (a restored backup) instead of a fresh one.
    pub sqlite_file: Option<PathBuf>,
    pub trusted_proxies: TrustedProxies,
    /// Appended to the test database's URL (PostgreSQL), e.g. `?sslmode=require`.
    pub postgres_url_suffix: String,
    /// Connect to the test PostgreSQL over its Unix socket (the directory
    /// `scripts/with-postgres.sh` names in `KEYDO_TEST_POSTGRES_SOCKET_DIR`), not TCP.
    pub postgres_over_socket: bool,
    pub store: StoreOptions,
    /// Whether a log is spent once (docs/replay.md). Off by default: tests send one
    /// simulated game (the same log) under several saves; the forgery tests turn it on.
    pub logs_spent_once: bool,
    /// The review page's operator token; `None`: the page is off.
    pub admin_token: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            rate_limits: limits(10_000, 10_000, 10_000),
            public_origin: None,
            request_timeout: Duration::from_secs(10),
            postgres_admin_url: None,
            dist: None,
            review: Thresholds::default(),
            gates: Gates::off(),
            sqlite_file: None,
            trusted_proxies: TrustedProxies::default(),
            postgres_url_suffix: String::new(),
            postgres_over_socket: false,
            store: StoreOptions::default(),
            logs_spent_once: false,
            admin_token: None,
        }
    }
}

pub fn limits(per_ip: u32, per_identity: u32, saves: u32) -> RateLimits {
    let n = |n| NonZeroU32::new(n).unwrap();
    RateLimits {
        per_ip_per_minute: n(per_ip),
        per_identity_per_minute: n(per_identity),
        save_creations_per_minute: n(saves),
        held_per_save_per_minute: n(10_000),
        held_per_ip_per_minute: n(10_000),
        texts_per_save_per_hour: n(10_000),
        texts_per_ip_per_hour: n(10_000),
        save_creations_per_56_per_minute: n(saves),
        save_creations_per_48_per_minute: n(saves),
    }
}

/// The PostgreSQL server tests may use (`scripts/with-postgres.sh` sets it). In CI
/// (`CI=true`) its absence fails the test instead of skipping it: there the cluster
/// must have started.
pub fn postgres_admin_url() -> Option<String> {
    let url = std::env::var("KEYDO_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty());
    if url.is_none() && std::env::var("CI").is_ok_and(|ci| ci == "true") {
        panic!(
            "CI=true but KEYDO_TEST_POSTGRES_URL is unset: run the tests through \
             scripts/with-postgres.sh, which must start a PostgreSQL cluster"
        );
    }
    url
}

/// The router `keydo-server` builds around `store` with the test's `options`.
fn router_on(store: Store, options: &Options, dist: &Path, clock: Arc<ManualClock>) -> Router {
    let settings = Settings {
        dist: options.dist.clone().unwrap_or_else(|| dist.to_owned()),
        public_origin: options.public_origin.clone(),
        tls: false,
        trusted_proxies: options.trusted_proxies.clone(),
        rate_limits: options.rate_limits,
        request_timeout: options.request_timeout,
        review: options.review,
        gates: options.gates,
        alerts: Alerts {
            held_results: 1_000,
            database_bytes: 8 << 30,
        },
        logs_spent_once: options.logs_spent_once,
        admin_token: options
            .admin_token
            .as_deref()
            .map(|token| OperatorToken::new(token).unwrap()),
    };
    router::build(AppState::new(settings, store, clock))
}

/// A server of our own: router, database, dist and clock.
pub struct TestServer {
    /// The router as `keydo-server` serves it (no client address attached).
    pub router: Router,
    pub clock: Arc<ManualClock>,
    pub location: Location,
    options: Options,
    dist: TempDir,
    data: TempDir,
    postgres_database: Option<PostgresDatabase>,
}

impl TestServer {
    pub async fn start(options: Options) -> TestServer {
        let dist = temp_dist();
        let data = TempDir::new().unwrap();
        let (location, postgres_database) = match &options.postgres_admin_url {
            None => (
                Location::Sqlite(
                    options
                        .sqlite_file
                        .clone()
                        .unwrap_or_else(|| data.path().join("keydo.sqlite3")),
                ),
                None,
            ),
            Some(admin_url) => {
                let database = PostgresDatabase::create(admin_url).await;
                let url = if options.postgres_over_socket {
                    over_socket(&database.url)
                } else {
                    database.url.clone()
                };
                let url = format!("{url}{}", options.postgres_url_suffix);
                (Location::Postgres(url), Some(database))
            }
        };
        let store = {
            let (location, store_options) = (location.clone(), options.store.clone());
            tokio::task::spawn_blocking(move || Store::open_with(&location, &store_options))
                .await
                .unwrap()
                .unwrap()
        };
        let clock = Arc::new(ManualClock(AtomicI64::new(
            MONDAY_2026_11_30_UTC8 + 3_600_000,
        )));
        let router = router_on(store, &options, dist.path(), clock.clone());
        TestServer {
            router,
            clock,
            location,
            options,
            dist,
            data,
            postgres_database,
        }
    }

    /// Another server instance on this one's database and clock, as a second
    /// `keydo-server` process behind the same proxy: its own connections, caches and
    /// limits. Its router, seen from [`client_addr`].
    pub async fn another_instance(&self) -> Router {
        let (location, store_options) = (self.location.clone(), self.options.store.clone());
        let store =
            tokio::task::spawn_blocking(move || Store::open_with(&location, &store_options))
                .await
                .unwrap()
                .unwrap();
        router_on(store, &self.options, self.dist.path(), self.clock.clone())
            .layer(MockConnectInfo(client_addr()))
    }

    pub async fn sqlite() -> TestServer {
        TestServer::start(Options::default()).await
    }

    /// A server with `options` on SQLite and, when a test PostgreSQL is configured,
    /// another on PostgreSQL: for behaviours that must hold on both.
    pub async fn on_every_database(test: &str, options: Options) -> Vec<TestServer> {
        let mut servers = vec![TestServer::start(options.clone()).await];
        match postgres_admin_url() {
            Some(admin_url) => {
                let options = Options {
                    postgres_admin_url: Some(admin_url),
                    ..options
                };
                servers.push(TestServer::start(options).await);
            }
            None => eprintln!(
                "{test}: SQLite only, KEYDO_TEST_POSTGRES_URL is unset (see scripts/with-postgres.sh)"
            ),
        }
        servers
    }

    /// A store of the test's own on the server's database, as `keydo-server admin` or
    /// another server process opens it: it bypasses this server's in-process turns.
    pub async fn own_store(&self) -> Store {
        let location = self.location.clone();
        tokio::task::spawn_blocking(move || Store::open(&location))
            .await
            .unwrap()
            .unwrap()
    }

    /// Asserts that every bucket count of the boards' ranks equals a count of their
    /// rows (docs/operations.md, "Ranks at a million"), before and after the sweeper folds.
    pub async fn assert_rank_counts_exact(&self) {
        let store = self.own_store().await;
        assert_eq!(
            store.rank_count_differences().await.unwrap(),
            0,
            "before folding"
        );
        store.fold_rank_deltas().await.unwrap();
        assert_eq!(
            store.rank_count_differences().await.unwrap(),
            0,
            "after folding"
        );
    }

    /// How many rows `table` holds, read past the server.
    pub async fn count_rows(&self, table: &str) -> i64 {
        let statement = format!("SELECT COUNT(*) FROM {table}");
        match self.location.clone() {
            Location::Sqlite(path) => rusqlite::Connection::open(path)
                .unwrap()
                .query_row(&statement, [], |row| row.get(0))
                .unwrap(),
            // The synchronous client runs its own runtime, so not on this (async) thread.
            Location::Postgres(url) => std::thread::spawn(move || {
                let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
                client.query_one(&statement, &[]).unwrap().get(0)
            })
            .join()
            .unwrap(),
        }
    }

    pub fn dist(&self) -> &Path {
        self.dist.path()
    }

    pub fn data_dir(&self) -> &Path {
        self.data.path()
    }

    pub fn sqlite_path(&self) -> PathBuf {
        match &self.location {
            Location::Sqlite(path) => path.clone(),
            Location::Postgres(_) => panic!("this test needs SQLite"),
        }
    }

    /// The router seen from `client`, as `into_make_service_with_connect_info` would.
    pub fn app_from(&self, client: SocketAddr) -> Router {
        self.router.clone().layer(MockConnectInfo(client))
    }

    pub async fn send_from(&self, client: SocketAddr, request: Request<Body>) -> Response<Body> {
        self.app_from(client)
            .oneshot(request)
            .await
            .expect("the router is infallible")
    }

    pub async fn send(&self, request: Request<Body>) -> Response<Body> {
        self.send_from(client_addr(), request).await
    }

    pub async fn get(&self, uri: &str) -> Response<Body> {
        self.send(Request::get(uri).body(Body::empty()).unwrap())
            .await
    }

    /// A fresh save, via the API.
    pub async fn create_save(&self) -> SaveCreated {
        let response = self.send(post_json("/api/saves", &json!({}))).await;
        assert_eq!(response.status(), 201);
        serde_json::from_value(body_json(response).await).unwrap()
    }

    /// Serves on a real socket at 127.0.0.1:<free port>; the server lives as long as
    /// the test's runtime.
    pub async fn listen(&self) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let app = self
            .router
            .clone()
            .into_make_service_with_connect_info::<SocketAddr>();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        address
    }

    /// Serves on a real socket as `keydo-server` does, within `limits`; the server
    /// lives as long as the test's runtime.
    pub async fn listen_within(&self, limits: ConnectionLimits) -> SocketAddr {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let app = self.router.clone();
        tokio::spawn(connections::serve(
            listener,
            app,
            limits,
            None,
            std::future::pending(),
        ));
        address
    }

    /// The name of this test's own PostgreSQL database.
    pub fn postgres_database(&self) -> &str {
        &self
            .postgres_database
            .as_ref()
            .expect("this test needs PostgreSQL")
            .name
    }
}

/// `url` (`postgres://user@host:port/database`) with the host replaced by the test
/// cluster's socket directory, percent-encoded as a host of the URL.
fn over_socket(url: &str) -> String {
    let dir = std::env::var("KEYDO_TEST_POSTGRES_SOCKET_DIR").expect("set by with-postgres.sh");
    let dir: String = url::form_urlencoded::byte_serialize(dir.as_bytes()).collect();
    let (scheme_user, rest) = url.split_once('@').expect("a URL with a user");
    let (_host, port_database) = rest.split_once(':').expect("a URL with a port");
    format!("{scheme_user}@{dir}:{port_database}")
}

/// A database of its own on the test PostgreSQL, dropped with the test.
struct PostgresDatabase {
    admin_url: String,
    name: String,
    url: String,
}

impl PostgresDatabase {
    async fn create(admin_url: &str) -> PostgresDatabase {
        let name = format!("keydo_test_{}", uuid::Uuid::new_v4().simple());
        let (base, _admin_database) = admin_url
            .rsplit_once('/')
            .expect("a URL ending in /<database>");
        let database = PostgresDatabase {
            admin_url: admin_url.to_owned(),
            url: format!("{base}/{name}"),
            name,
        };
        let statement = format!("CREATE DATABASE {}", database.name);
        let admin_url = database.admin_url.clone();
        tokio::task::spawn_blocking(move || admin(&admin_url, &statement))
            .await
            .unwrap();
        database
    }
}

impl Drop for PostgresDatabase {
    fn drop(&mut self) {
        let (admin_url, statement) = (
            self.admin_url.clone(),
            format!("DROP DATABASE {} WITH (FORCE)", self.name),
        );
        // The synchronous client runs its own runtime, so not on this (async) thread.
        std::thread::spawn(move || admin(&admin_url, &statement))
            .join()
            .unwrap();
    }
}

/// Runs `statement` on the test PostgreSQL as its superuser.
pub fn admin(admin_url: &str, statement: &str) {
    let mut client = postgres::Client::connect(admin_url, postgres::NoTls)
        .expect("connecting to the test PostgreSQL");
    client.batch_execute(statement).unwrap();
}

/// A temporary `dist/` holding [`SHELL`].
pub fn temp_dist() -> TempDir {
    let dist = TempDir::new().expect("creating a temp dist");
    for (path, contents) in SHELL {
        let file = dist.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, contents).unwrap();
    }
    dist
}

pub fn client_addr() -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 40_000))
}

pub fn post_json(uri: &str, body: &Value) -> Request<Body> {
    Request::post(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap()
}

pub fn with_token(mut request: Request<Body>, token: impl std::fmt::Display) -> Request<Body> {
    request.headers_mut().insert(
        header::AUTHORIZATION,
        format!("Bearer {token}").parse().unwrap(),
    );
    request
}

/// The body of a real game: `mode` dealt on `seed` as the page deals it, typed by a
/// simulated person at about `wpm` (with a mistake fixed every 40 keys, and a human
/// rhythm), ended at `played_at`, with a fresh score id. Its `value` is what the game
/// scored.
pub fn played_game(mode: Mode, seed: u64, wpm: u32, played_at: i64) -> Value {
    let played = play(
        Corpora::shipped(),
        mode,
        Seed::new(seed).unwrap(),
        &Typist::steady_human(wpm),
    );
    serde_json::to_value(played.submission(uuid::Uuid::new_v4(), played_at as u64)).unwrap()
}

/// [`played_game`] in `words`.
pub fn words_game(seed: u64, wpm: u32, played_at: i64) -> Value {
    played_game(Mode::Words, seed, wpm, played_at)
}

/// The same game as `game` under a new score id: a second submission of it.
pub fn resubmitted(game: &Value) -> Value {
    let mut again = game.clone();
    again["scoreId"] = json!(uuid::Uuid::new_v4());
    again
}

/// A game's `value`.
pub fn value_of(game: &Value) -> i64 {
    game["value"].as_i64().expect("a value")
}

pub async fn body_bytes(response: Response<Body>) -> Vec<u8> {
    to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap()
        .to_vec()
}

pub async fn body_json(response: Response<Body>) -> Value {
    let bytes = body_bytes(response).await;
    serde_json::from_slice(&bytes)
        .unwrap_or_else(|_| panic!("not JSON: {}", String::from_utf8_lossy(&bytes)))
}

pub fn header<'a>(response: &'a Response<Body>, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .unwrap_or_else(|| panic!("no {name} header"))
        .to_str()
        .unwrap()
}

/// Asserts an API error answer: status, code, a message, and the request id in both
/// the body and the header. Returns the body.
pub async fn assert_error(response: Response<Body>, status: u16, code: &str) -> Value {
    assert_eq!(response.status(), status, "expected {status} {code}");
    assert_eq!(header(&response, "content-type"), "application/json");
    assert_eq!(header(&response, "cache-control"), "no-store");
    let request_id = header(&response, "x-request-id").to_owned();
    let body = body_json(response).await;
    assert_eq!(body["error"]["code"], code, "{body}");
    assert_eq!(body["error"]["requestId"], request_id.as_str());
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.ends_with('.')),
        "{body}"
    );
    body
}
