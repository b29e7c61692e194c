//! The benchmark's baseline: a bare axum handler doing what one score submission
//! costs at its core (bearer read, JSON parse, one SQLite upsert), with none of the
//! server's pipeline, so `scripts/bench-server.sh` can show what the pipeline costs.
//!
//! `cargo run --release --example bare_upsert -- <addr> <database file> [synchronous]`
//! (`NORMAL` unless given, e.g. `FULL`); the bearer token stands in for the player id.
//! It commits each upsert on its own, so with `FULL` every request waits for an fsync.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use axum::{Json, Router};
use keydo_core::api::ScoreSubmission;
use rusqlite::Connection;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(addr), Some(file)) = (args.next(), args.next()) else {
        anyhow::bail!("usage: bare_upsert <addr> <database file> [synchronous]");
    };
    let synchronous = args.next().unwrap_or_else(|| "NORMAL".to_owned());
    let connection = Connection::open(file)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", &synchronous)?;
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS scores (
             player_id TEXT NOT NULL, mode TEXT NOT NULL, value BIGINT NOT NULL,
             score_id TEXT NOT NULL, achieved_at BIGINT NOT NULL,
             PRIMARY KEY (player_id, mode))",
    )?;
    let app = Router::new()
        .route("/api/scores", post(upsert))
        .with_state(Arc::new(Mutex::new(connection)));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

async fn upsert(
    State(connection): State<Arc<Mutex<Connection>>>,
    headers: HeaderMap,
    Json(game): Json<ScoreSubmission>,
) -> Result<Json<Value>, StatusCode> {
    let player = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .ok_or(StatusCode::UNAUTHORIZED)?
        .to_owned();
    let improved = tokio::task::spawn_blocking(move || {
        let connection = connection
            .lock()
            .expect("no panics while holding the connection");
        let mut statement = connection.prepare_cached(
            "INSERT INTO scores (player_id, mode, value, score_id, achieved_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (player_id, mode) DO UPDATE
             SET value = excluded.value, score_id = excluded.score_id,
                 achieved_at = excluded.achieved_at
             WHERE excluded.value > scores.value
             RETURNING value",
        )?;
        let played_at = i64::try_from(game.played_at).unwrap_or(i64::MAX);
        let params = (
            player,
            game.mode.id(),
            game.value,
            game.score_id.to_string(),
            played_at,
        );
        statement.query(params)?.next().map(|row| row.is_some())
    })
    .await
    .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?
    .map_err(|_| StatusCode::INTERNAL_SERVER_ERROR)?;
    Ok(Json(json!({ "improved": improved })))
}
