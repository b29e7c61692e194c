//! Two server instances on one database, as two `keydo-server` processes behind one
//! proxy (docs/operations.md, "Several servers"): one player's games sent through both
//! at once, each game to both, leave the rows the same games leave sent one at a time
//! through one, on every database.

mod common;

use axum::Router;
use common::scenarios::{join, link_code, me, submit};
use common::{Options, TestServer, body_json, played_game, post_json, resubmitted, with_token};
use keydo_core::Mode;
use keydo_core::api::ScoreAck;
use keydo_server::clock::Clock;
use serde_json::Value;
use tower::ServiceExt;
use uuid::Uuid;

async fn submit_through(router: Router, token: Uuid, game: Value) -> ScoreAck {
    let response = router
        .oneshot(with_token(post_json("/api/scores", &game), token))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    serde_json::from_value(body_json(response).await).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_players_games_through_two_instances_at_once_leave_the_serial_rows() {
    let test = "a_players_games_through_two_instances_at_once_leave_the_serial_rows";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let now = server.clock.now_ms();
        // Rising and falling speeds in three modes: bests replaced and held on both
        // boards, in an order the two instances race over.
        let games: Vec<Value> = [
            (Mode::Words, 1, 60),
            (Mode::Words, 2, 95),
            (Mode::Zh, 1, 70),
            (Mode::Words, 3, 45),
            (Mode::Quote, 1, 80),
            (Mode::Zh, 2, 110),
            (Mode::Words, 4, 120),
            (Mode::Quote, 2, 50),
            (Mode::Zh, 3, 40),
            (Mode::Words, 5, 100),
        ]
        .into_iter()
        .map(|(mode, seed, wpm)| played_game(mode, seed, wpm, now))
        .collect();

        let serial = server.create_save().await;
        for game in &games {
            submit(&server, serial.token, game).await;
        }

        let raced = server.create_save().await;
        let (first, second) = (
            server.app_from(common::client_addr()),
            server.another_instance().await,
        );
        let sends: Vec<_> = games
            .iter()
            .map(resubmitted)
            .flat_map(|game| {
                [first.clone(), second.clone()]
                    .map(|router| tokio::spawn(submit_through(router, raced.token, game.clone())))
            })
            .collect();
        for pair in futures_util::future::join_all(sends).await.chunks(2) {
            let (one, other) = (pair[0].as_ref().unwrap(), pair[1].as_ref().unwrap());
            // The same game through both: one result, one code.
            assert!(one.code.is_some());
            assert_eq!(one.code, other.code);
        }

        let (serial_bests, raced_bests) = (
            me(&server, serial.token).await.bests,
            me(&server, raced.token).await.bests,
        );
        assert_eq!(serial_bests.len(), 3);
        assert_eq!(raced_bests, serial_bests);
        assert_eq!(server.count_rows("results").await, 2 * games.len() as i64);
        assert_eq!(server.count_rows("scores").await, 2 * 3);
        assert_eq!(server.count_rows("weekly_scores").await, 2 * 3);
        server.assert_rank_counts_exact().await;
    }
}

/// How often the fold below is raced, each time with two fresh saves.
const FOLD_ROUNDS: usize = 4;

/// Games of two saves in three modes, target's through both instances and each to
/// both, the joining save's through the first, while the first instance folds the
/// joining save into the target: on PostgreSQL the fold and the batches holding both
/// players' games take the saves in one order (docs/operations.md, "Writes committed
/// together"), so every request is answered, none with a deadlock's 503.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_fold_racing_both_saves_games_is_answered_and_keeps_the_bests() {
    let test = "a_fold_racing_both_saves_games_is_answered_and_keeps_the_bests";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let now = server.clock.now_ms();
        let (first, second) = (
            server.app_from(common::client_addr()),
            server.another_instance().await,
        );
        for round in 0..FOLD_ROUNDS {
            let (target, joining) = (server.create_save().await, server.create_save().await);
            let games = |seeds: std::ops::Range<u64>| -> Vec<Value> {
                seeds
                    .map(|seed| {
                        let mode = [Mode::Words, Mode::Zh, Mode::Quote][seed as usize % 3];
                        played_game(mode, seed, 40 + (seed as u32 * 37) % 90, now)
                    })
                    .collect()
            };
            let (targets, joinings) = (games(1..13), games(101..113));
            let code = link_code(&server, target.token).await;
            let sends = |router: &Router, token: Uuid, games: &[Value]| {
                games
                    .iter()
                    .map(|game| {
                        let request = with_token(post_json("/api/scores", game), token);
                        tokio::spawn(router.clone().oneshot(request))
                    })
                    .collect::<Vec<_>>()
            };
            let mut targets_sent = sends(&first, target.token, &targets);
            targets_sent.extend(sends(&second, target.token, &targets));
            let (early, late) = joinings.split_at(joinings.len() / 2);
            let mut joinings_sent = sends(&first, joining.token, early);
            let fold = {
                let request =
                    with_token(join(&code.code, &Uuid::new_v4().to_string()), joining.token);
                tokio::spawn(first.clone().oneshot(request))
            };
            joinings_sent.extend(sends(&first, joining.token, late));

            assert_eq!(fold.await.unwrap().unwrap().status(), 201, "round {round}");
            for sent in targets_sent {
                assert_eq!(sent.await.unwrap().unwrap().status(), 200, "round {round}");
            }
            // The joining save's games count until the fold takes it, then its token
            // is refused.
            let mut counted = targets.clone();
            for (game, sent) in joinings.iter().zip(joinings_sent) {
                match sent.await.unwrap().unwrap().status().as_u16() {
                    200 => counted.push(game.clone()),
                    401 => {}
                    status => panic!("round {round}: a joining game answered {status}"),
                }
            }
            let bests = me(&server, target.token).await.bests;
            for mode in [Mode::Words, Mode::Zh, Mode::Quote] {
                let best = counted
                    .iter()
                    .filter(|game| game["mode"] == serde_json::to_value(mode).unwrap())
                    .map(|game| game["value"].as_i64().unwrap())
                    .max();
                let stored = bests.iter().find(|best| best.mode == mode);
                assert_eq!(
                    stored.map(|best| best.alltime),
                    best,
                    "round {round} {mode:?}"
                );
            }
        }
        server.assert_rank_counts_exact().await;
    }
}
