//! `GET /api/saves/me` answers the bests the server holds, so a client can resend
//! what a server restored from an older backup lacks.

mod common;

use common::scenarios::me;
use common::{Options, TestServer, played_game, post_json, value_of, with_token};
use keydo_core::Mode;
use keydo_core::api::ServerBest;
use keydo_core::api::week::week_of;
use keydo_server::clock::Clock;
use serde_json::Value;
use uuid::Uuid;

/// A real game of `mode` on `seed` at about `wpm`, played at `played_at`.
fn game(mode: Mode, seed: u64, wpm: u32, played_at: i64) -> Value {
    played_game(mode, seed, wpm, played_at)
}

async fn submit(server: &TestServer, token: Uuid, game: &Value) {
    let response = server
        .send(with_token(post_json("/api/scores", game), token))
        .await;
    assert_eq!(response.status(), 200);
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

        let now = server.clock.now_ms();
        let words_best = game(Mode::Words, 1, 80, now);
        submit(&server, save.token, &words_best).await;
        submit(&server, save.token, &game(Mode::Words, 2, 60, now)).await;
        // Played last week by the client's clock: all time only.
        let last_week = keydo_core::api::week::week_start_ms(week) - 3_600_000;
        let time_best = game(Mode::Time, 3, 70, last_week);
        submit(&server, save.token, &time_best).await;
        submit(&server, other.token, &game(Mode::Time, 1, 20, now)).await;
        submit(&server, other.token, &game(Mode::Words, 2, 100, now)).await;
        let (words_best, time_best) = (value_of(&words_best), value_of(&time_best));

        let shown = me(&server, save.token).await;
        assert_eq!(shown.week, week);
        assert_eq!(
            shown.bests,
            [
                best(Mode::Time, time_best, None),
                best(Mode::Words, words_best, Some(words_best))
            ]
        );

        // Next Monday 00:00 UTC+8: the weekly bests start again, all time stays.
        let next_monday = keydo_core::api::week::week_start_ms(week + 1);
        server.clock.set(next_monday);
        let next_week = me(&server, save.token).await;
        assert_eq!(next_week.week, week + 1);
        assert_eq!(
            next_week.bests,
            [
                best(Mode::Time, time_best, None),
                best(Mode::Words, words_best, None)
            ]
        );
        let slow = game(Mode::Words, 4, 40, next_monday);
        submit(&server, save.token, &slow).await;
        assert_eq!(
            me(&server, save.token).await.bests,
            [
                best(Mode::Time, time_best, None),
                best(Mode::Words, words_best, Some(value_of(&slow)))
            ]
        );
    }
}

#[tokio::test]
async fn a_server_restored_from_an_older_backup_lacks_the_newer_bests() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    let now = server.clock.now_ms();
    let backed_up = game(Mode::Words, 1, 60, now);
    submit(&server, save.token, &backed_up).await;

    let backups = tempfile::TempDir::new().unwrap();
    let backup = backups.path().join("keydo-backup.sqlite3");
    keydo_server::backup::write(&server.location, &backup).unwrap();

    let words = game(Mode::Words, 2, 80, now);
    let time = game(Mode::Time, 3, 70, now);
    submit(&server, save.token, &words).await;
    submit(&server, save.token, &time).await;
    let (words, time) = (value_of(&words), value_of(&time));
    assert_eq!(
        me(&server, save.token).await.bests,
        [
            best(Mode::Time, time, Some(time)),
            best(Mode::Words, words, Some(words))
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
        [best(
            Mode::Words,
            value_of(&backed_up),
            Some(value_of(&backed_up))
        )],
        "the restored server has only what the backup held"
    );
}
