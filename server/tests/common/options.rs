//! The word tests' options on the server (docs/scoring.md, "Options"): each is replayed
//! as played, counts on the player's own board of those options only, never a public
//! one, and `GET /api/saves/me` returns its best. Written once, run on every database
//! (`options.rs` on SQLite, `postgres.rs` on PostgreSQL).

use super::scenarios::{leaderboard, me, submit};
use super::{MONDAY_2026_11_30_UTC8, TestServer, assert_error, body_json, post_json, with_token};
use axum::body::Body;
use axum::http::Request;
use keydo_core::api::{OptionsBest, ResultReplay};
use keydo_core::game::corpora::Corpora;
use keydo_core::game::options::{Test, TestOptions};
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Mode, PromptId, Seed};
use serde_json::Value;
use uuid::Uuid;

/// A game of `test` dealt on `seed`, typed at about `wpm`, ended at `played_at`.
pub fn options_game(test: Test, seed: u64, wpm: u32, played_at: i64) -> Value {
    let played = play(
        Corpora::shipped(),
        test,
        Seed::new(seed).unwrap(),
        &Typist::steady_human(wpm),
    );
    serde_json::to_value(played.submission(Uuid::new_v4(), played_at as u64)).unwrap()
}

fn test(mode: Mode, length: u16, punctuation: bool, numbers: bool) -> Test {
    Test {
        mode,
        options: TestOptions {
            punctuation,
            numbers,
            ..TestOptions::default()
        }
        .with_length(mode, length),
    }
}

/// Every option is verified by replaying it as that test; each keeps its own best,
/// apart from the others and from the mode's public boards.
pub async fn each_option_keeps_its_own_best(server: &TestServer) {
    let save = server.create_save().await;
    let t = MONDAY_2026_11_30_UTC8;
    let tests = [
        test(Mode::Time, 15, true, false),
        test(Mode::Time, 30, false, true),
        test(Mode::Time, 120, false, false),
        test(Mode::Time, 60, true, true),
        test(Mode::Words, 10, false, false),
        test(Mode::Words, 25, true, true),
        test(Mode::Words, 100, false, true),
    ];
    let mut expected = Vec::new();
    for (seed, test) in tests.iter().enumerate() {
        let game = options_game(*test, seed as u64 + 1, 70, t + seed as i64);
        let ack = submit(server, save.token, &game).await;
        assert!(ack.improved, "{test:?}");
        assert_eq!(ack.best, game["value"].as_i64().unwrap(), "{test:?}");
        assert!(!ack.weekly_accepted, "{test:?}: no public board");
        expected.push(OptionsBest {
            mode: test.mode,
            options: test.options,
            value: ack.best,
        });
    }
    // None reached a public board.
    for mode in [Mode::Time, Mode::Words] {
        let board = leaderboard(
            server,
            &format!("mode={mode}&board=alltime"),
            Some(save.token),
        )
        .await;
        assert!(board.entries.is_empty(), "{mode}");
        assert!(board.me.is_none(), "{mode}");
    }
    let shown = me(server, save.token).await;
    assert!(shown.bests.is_empty());
    let mut option_bests = shown.option_bests.clone();
    option_bests.sort_by_key(|best| (best.mode, best.options));
    expected.sort_by_key(|best| (best.mode, best.options));
    assert_eq!(option_bests, expected);

    // A slower game of one option keeps that option's best; the public test's game
    // goes to the public boards and touches no option's best.
    let slow = options_game(tests[0], 50, 40, t + 100);
    let ack = submit(server, save.token, &slow).await;
    assert!(!ack.improved);
    let kept = expected
        .iter()
        .find(|best| best.options == tests[0].options && best.mode == Mode::Time)
        .unwrap()
        .value;
    assert_eq!(ack.best, kept);
    let public = options_game(Mode::Time.into(), 51, 60, t + 101);
    let ack = submit(server, save.token, &public).await;
    assert!(ack.improved && ack.weekly_accepted);
    let shown = me(server, save.token).await;
    assert_eq!(shown.bests.len(), 1);
    assert_eq!(shown.bests[0].alltime, ack.best);
    let mut option_bests = shown.option_bests;
    option_bests.sort_by_key(|best| (best.mode, best.options));
    assert_eq!(option_bests, expected, "unchanged by the other games");
}

/// A log claimed as another test is refused, and so are options no mode offers; an
/// option's public replay names its options, so it plays back as played.
pub async fn a_claim_of_other_options_is_refused(server: &TestServer) {
    let save = server.create_save().await;
    let t = MONDAY_2026_11_30_UTC8;
    let fifteen = test(Mode::Time, 15, false, false);
    let game = options_game(fifteen, 7, 70, t);
    let prompt: PromptId = serde_json::from_value(game["prompt"].clone()).unwrap();
    // Played 15 s, claimed as the 60 s public test: the replay runs 60 s.
    let mut as_public = game.clone();
    as_public["prompt"] =
        serde_json::to_value(prompt.clone().with_options(TestOptions::default())).unwrap();
    let refused = server
        .send(with_token(post_json("/api/scores", &as_public), save.token))
        .await;
    assert_error(refused, 422, "REPLAY_MISMATCH").await;
    let mut odd = game.clone();
    odd["prompt"]["length"] = 45.into();
    let refused = server
        .send(with_token(post_json("/api/scores", &odd), save.token))
        .await;
    assert_error(refused, 422, "UNKNOWN_PROMPT").await;
    let mut on_quote = game.clone();
    on_quote["mode"] = "quote".into();
    let refused = server
        .send(with_token(post_json("/api/scores", &on_quote), save.token))
        .await;
    assert_eq!(refused.status(), 422);

    let ack = submit(server, save.token, &game).await;
    assert!(ack.improved);
    let code = ack.code.unwrap();
    let response = server
        .send(
            Request::get(format!("/api/results/{code}/replay"))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(response.status(), 200);
    let replay: ResultReplay = serde_json::from_value(body_json(response).await).unwrap();
    assert_eq!(replay.prompt, prompt);
    assert_eq!(replay.prompt.options(), fifteen.options);
}
