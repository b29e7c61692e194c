//! `GET /api/saves/me` answers the bests the server holds, so a client can resend
//! what a server restored from an older backup lacks.

mod common;

use axum::body::Body;
use axum::http::Request;
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, body_json, post_json, with_token, words_game,
};
use keydo_core::Mode;
use keydo_core::api::{Save, ServerBest};
use keydo_core::week::week_of;
use keydo_server::clock::Clock;
use serde_json::Value;
use uuid::Uuid;

/// A plausible game of `mode` (`time` or `words`): `correct_chars` in 60 s, worth
/// `correct_chars × 20`.
fn game(mode: Mode, week: i64, correct_chars: u32) -> Value {
    let mut game = words_game(Uuid::new_v4(), week, correct_chars, MONDAY_2026_11_30_UTC8);
    game["mode"] = mode.id().into();
    game
}

async fn submit(server: &TestServer, token: Uuid, game: &Value) {
    let response = server
        .send(with_token(post_json("/api/scores", game), token))
        .await;
    assert_eq!(response.status(), 200);
}

async fn me(server: &TestServer, token: Uuid) -> Save {
    let request = Request::get("/api/saves/me").body(Body::empty()).unwrap();
    let response = server.send(with_token(request, token)).await;
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

fn best(mode: Mode, alltime: i64, weekly: Option<i64>) -> ServerBest {
    ServerBest {
        mode,
        alltime,
        weekly,
    }
}

#[tokio::test]
async fn the_save_lists_the_servers_bests_per_mode_played() {
    let test = "the_save_lists_the_servers_bests_per_mode_played";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let week = week_of(server.clock.now_ms());
        let save = server.create_save().await;
        let other = server.create_save().await;
        let fresh = me(&server, save.token).await;
        assert_eq!((fresh.week, fresh.bests), (week, vec![]));

        submit(&server, save.token, &game(Mode::Words, week, 400)).await;
        submit(&server, save.token, &game(Mode::Words, week, 300)).await;
        // Played last week by the client's clock: all time only.
        submit(&server, save.token, &game(Mode::Time, week - 1, 350)).await;
        submit(&server, other.token, &game(Mode::Time, week, 100)).await;
        submit(&server, other.token, &game(Mode::Words, week, 500)).await;

        let shown = me(&server, save.token).await;
        assert_eq!(shown.week, week);
        assert_eq!(
            shown.bests,
            [
                best(Mode::Time, 7_000, None),
                best(Mode::Words, 8_000, Some(8_000))
            ]
        );

        // Next Monday 00:00 UTC+8: the weekly bests start again, all time stays.
        server.clock.set(keydo_core::week::week_start_ms(week + 1));
        let next_week = me(&server, save.token).await;
        assert_eq!(next_week.week, week + 1);
        assert_eq!(
            next_week.bests,
            [
                best(Mode::Time, 7_000, None),
                best(Mode::Words, 8_000, None)
            ]
        );
        submit(&server, save.token, &game(Mode::Words, week + 1, 200)).await;
        assert_eq!(
            me(&server, save.token).await.bests,
            [
                best(Mode::Time, 7_000, None),
                best(Mode::Words, 8_000, Some(4_000))
            ]
        );
    }
}

#[tokio::test]
async fn a_server_restored_from_an_older_backup_lacks_the_newer_bests() {
    let server = TestServer::sqlite().await;
    let week = week_of(server.clock.now_ms());
    let save = server.create_save().await;
    submit(&server, save.token, &game(Mode::Words, week, 300)).await;

    let backups = tempfile::TempDir::new().unwrap();
    let backup = backups.path().join("keydo-backup.sqlite3");
    keydo_server::backup::write(&server.location, &backup).unwrap();

    submit(&server, save.token, &game(Mode::Words, week, 400)).await;
    submit(&server, save.token, &game(Mode::Time, week, 350)).await;
    assert_eq!(
        me(&server, save.token).await.bests,
        [
            best(Mode::Time, 7_000, Some(7_000)),
            best(Mode::Words, 8_000, Some(8_000))
        ]
    );

    let restored = TestServer::start(Options {
        sqlite_file: Some(backup),
        ..Options::default()
    })
    .await;
    let shown = me(&restored, save.token).await;
    assert_eq!(shown.player_id, save.player_id);
    assert_eq!(
        shown.bests,
        [best(Mode::Words, 6_000, Some(6_000))],
        "the restored server has only what the backup held"
    );
}
