//! `keydo-server backup` under write load, and a restore from its file.

mod common;

use common::{
    MONDAY_2026_11_30_UTC8, TestServer, body_json, post_json, resubmitted, value_of, with_token,
    words_game,
};
use keydo_core::Mode;
use keydo_core::api::week::week_of;
use keydo_server::auth::token_sha256;
use keydo_server::store::Board;
use keydo_server::store::{Location, Store};
use serde_json::json;
use std::collections::HashMap;
use std::process::Command;
use uuid::Uuid;

const WRITERS: usize = 4;
const PLAYERS_PER_WRITER: usize = 40;

/// Player `n` of writer `w` is named `w-n` and plays game `n` of [`games`].
fn name(writer: usize, n: usize) -> String {
    format!("{writer}-{n}")
}

/// Game `n`: `words` on seed `n` at `60 + n` WPM.
fn games() -> Vec<serde_json::Value> {
    (0..PLAYERS_PER_WRITER)
        .map(|n| words_game(n as u64, 60 + n as u32, MONDAY_2026_11_30_UTC8))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_under_write_load_restores_every_row() {
    let server = TestServer::sqlite().await;
    let week = week_of(MONDAY_2026_11_30_UTC8);
    let games = std::sync::Arc::new(games());
    let (progress, mut progressed) = tokio::sync::mpsc::unbounded_channel();
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let (app, progress) = (server.app_from(common::client_addr()), progress.clone());
            let games = games.clone();
            tokio::spawn(async move {
                use tower::ServiceExt;
                let mut tokens = HashMap::new();
                for n in 0..PLAYERS_PER_WRITER {
                    let create =
                        post_json("/api/saves", &json!({ "displayName": name(writer, n) }));
                    let created = body_json(app.clone().oneshot(create).await.unwrap()).await;
                    let token: Uuid = created["token"].as_str().unwrap().parse().unwrap();
                    let game = resubmitted(&games[n]);
                    let response = app
                        .clone()
                        .oneshot(with_token(post_json("/api/scores", &game), token))
                        .await;
                    assert_eq!(response.unwrap().status(), 200);
                    tokens.insert(name(writer, n), token);
                    let _ = progress.send(());
                }
                tokens
            })
        })
        .collect();
    drop(progress);
    // Back up once a quarter of the games are in, while the writers go on.
    for _ in 0..WRITERS * PLAYERS_PER_WRITER / 4 {
        progressed.recv().await.unwrap();
    }
    let backup_dir = tempfile::TempDir::new().unwrap();
    let backup_file = backup_dir.path().join("keydo-backup.sqlite3");
    let status = {
        let (file, data_dir) = (backup_file.clone(), server.data_dir().to_owned());
        tokio::task::spawn_blocking(move || {
            Command::new(env!("CARGO_BIN_EXE_keydo-server"))
                .arg("backup")
                .arg(&file)
                .arg("--data-dir")
                .arg(&data_dir)
                .env_remove("KEYDO_DATABASE_URL")
                .status()
                .unwrap()
        })
        .await
        .unwrap()
    };
    assert!(status.success());
    let mut tokens = HashMap::new();
    for writer in writers {
        tokens.extend(writer.await.unwrap());
    }

    // Restore as documented: the file becomes <data-dir>/keydo.sqlite3.
    let restored_dir = tempfile::TempDir::new().unwrap();
    let restored = restored_dir.path().join("keydo.sqlite3");
    std::fs::copy(&backup_file, &restored).unwrap();

    let db = rusqlite::Connection::open(&restored).unwrap();
    let integrity: String = db
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let players: Vec<(String, String)> = db
        .prepare("SELECT display_name, token_sha256 FROM players")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(
        players.len() >= WRITERS * PLAYERS_PER_WRITER / 4,
        "the backup has {} players",
        players.len()
    );

    // Each writer wrote in order, so a consistent snapshot holds a prefix of each.
    for writer in 0..WRITERS {
        let count = players
            .iter()
            .filter(|(name, _)| name.starts_with(&format!("{writer}-")))
            .count();
        for n in 0..count {
            let (_, hash) = players
                .iter()
                .find(|(shown, _)| *shown == name(writer, n))
                .expect("a prefix");
            assert_eq!(*hash, token_sha256(&tokens[&name(writer, n)].to_string()));
        }
    }
    // Every score row is whole: each game wrote both boards in one transaction, and
    // only the newest player of a writer may still lack a score.
    let mut statement = db
        .prepare(
            "SELECT p.display_name, s.value, w.value FROM players p
             LEFT JOIN scores s ON s.player_id = p.player_id AND s.mode = 'words'
             LEFT JOIN weekly_scores w ON w.player_id = p.player_id AND w.mode = 'words' AND w.week = ?1",
        )
        .unwrap();
    let rows: Vec<(String, Option<i64>, Option<i64>)> = statement
        .query_map([week], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut missing_scores = 0;
    for (name, all_time, weekly) in &rows {
        let n: usize = name.split_once('-').unwrap().1.parse().unwrap();
        match (all_time, weekly) {
            (Some(all_time), Some(weekly)) => {
                let value = value_of(&games[n]);
                assert_eq!((*all_time, *weekly), (value, value), "{name}")
            }
            (None, None) => missing_scores += 1,
            torn => panic!("{name} has a torn write: {torn:?}"),
        }
    }
    assert!(missing_scores <= WRITERS);

    // The restored file serves: migrations are up to date and tokens still work.
    let location = Location::Sqlite(restored.clone());
    let store = tokio::task::spawn_blocking(move || Store::open(&location))
        .await
        .unwrap()
        .unwrap();
    let (entries, _) = store
        .leaderboard(Board::AllTime, Mode::Words, 100, None)
        .await
        .unwrap();
    assert_eq!(entries.len(), (rows.len() - missing_scores).min(100));
    let (first_name, _) = &players[0];
    let caller = store
        .caller_by_token(token_sha256(&tokens[first_name].to_string()))
        .await
        .unwrap()
        .unwrap();
    let profile = store.profile(caller.player_id).await.unwrap().unwrap();
    assert_eq!(profile.profile.display_name, *first_name);
}

#[test]
fn backing_up_onto_an_existing_file_or_a_missing_database_fails() {
    let dir = tempfile::TempDir::new().unwrap();
    let existing = dir.path().join("existing.sqlite3");
    std::fs::write(&existing, "keep me").unwrap();
    let backup = |file: &std::path::Path, data_dir: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_keydo-server"))
            .arg("backup")
            .arg(file)
            .arg("--data-dir")
            .arg(data_dir)
            .env_remove("KEYDO_DATABASE_URL")
            .output()
            .unwrap()
    };
    let missing_database = backup(&dir.path().join("new.sqlite3"), &dir.path().join("nowhere"));
    assert!(!missing_database.status.success());
    assert!(
        !dir.path().join("nowhere").exists(),
        "no empty database was created"
    );
    let onto_existing = backup(&existing, dir.path());
    assert!(!onto_existing.status.success());
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
}
