//! 跟打 on the server (docs/genda.md): loaded texts' boards, the day's race, result
//! codes and replays. Written once, run on every database (`genda.rs` on SQLite,
//! `postgres.rs` on PostgreSQL).

use super::scenarios::{leaderboard, submit};
use super::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, assert_error, body_json, post_json, with_token,
};
use axum::body::Body;
use axum::http::Request;
use keydo_core::api::{ResultReplay, ScoreAck, StoredTextAnswer, TextBoard};
use keydo_core::game::board::Ranking;
use keydo_core::game::corpora::Corpora;
use keydo_core::game::mode::Language;
use keydo_core::game::prompt_id::Corpus;
use keydo_core::text::LoadedText;
use keydo_core::text::daily::{daily_passage, race_day};
use keydo_core::verify::review::Thresholds;
use keydo_core::verify::simulate::{Played, Typist, play_prompt, play_text};
use keydo_core::{Mode, PromptId};
use serde_json::{Value, json};
use uuid::Uuid;

/// A Chinese text a group leader might paste, as pasted (with its line breaks).
pub const PASTED_ZH: &str = "学而时习之，不亦说乎？\n有朋自远方来，不亦乐乎？";

/// A game on the loaded `text`, typed by a simulated person at about `speed`
/// (`typist_seed` makes each person's rhythm, so two people's logs differ), ended at
/// `played_at`.
pub fn text_game(text: &LoadedText, speed: u32, typist_seed: u64, played_at: i64) -> Value {
    let typist = Typist {
        seed: typist_seed,
        ..Typist::steady_human(speed)
    };
    let played = play_text(text, &typist);
    serde_json::to_value(played.submission(Uuid::new_v4(), played_at as u64)).unwrap()
}

/// A game on the day's race of `day` in Chinese, ended at `played_at`.
pub fn daily_game(day: i64, speed: u32, typist_seed: u64, played_at: i64) -> Value {
    let passage = daily_passage(Corpora::shipped(), day, Language::Chinese);
    let typist = Typist {
        seed: typist_seed,
        ..Typist::steady_human(speed)
    };
    let played = Played {
        mode: Mode::Zh,
        prompt: PromptId::Passage {
            corpus: Corpus::Zh,
            passage: passage.id.clone(),
        },
        session: play_prompt(Mode::Zh, &passage.text, &typist),
    };
    serde_json::to_value(played.submission(Uuid::new_v4(), played_at as u64)).unwrap()
}

pub async fn get_json(server: &TestServer, uri: &str) -> Value {
    let response = server
        .send(Request::get(uri).body(Body::empty()).unwrap())
        .await;
    assert_eq!(response.status(), 200, "{uri}");
    body_json(response).await
}

pub async fn text_board(server: &TestServer, text: &str, ranking: &str) -> TextBoard {
    serde_json::from_value(
        get_json(
            server,
            &format!("/api/boards?text={text}&ranking={ranking}"),
        )
        .await,
    )
    .unwrap()
}

fn value_of(game: &Value) -> i64 {
    game["value"].as_i64().unwrap()
}

/// A pasted text's result whose speed was raised, with its real log, is refused; the
/// refusal stores neither the result nor the text.
pub async fn a_forged_speed_on_a_pasted_text_is_refused(server: &TestServer) {
    let save = server.create_save().await;
    let text = LoadedText::new(PASTED_ZH).unwrap();
    let mut forged = text_game(&text, 90, 1, MONDAY_2026_11_30_UTC8);
    forged["value"] = json!(value_of(&forged) * 2);
    let response = server
        .send(with_token(post_json("/api/scores", &forged), save.token))
        .await;
    assert_error(response, 422, "REPLAY_MISMATCH").await;
    assert_eq!(server.count_rows("results").await, 0);
    assert_eq!(server.count_rows("texts").await, 0);
    let response = server
        .send(
            Request::get(format!("/api/texts/{}", text.hash().short()))
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    assert_error(response, 404, "TEXT_NOT_FOUND").await;
}

/// Two players who paste the same text (differently spaced) land on one board of it,
/// which the mode's public boards never show; the text is stored once and loads by
/// its short hash.
pub async fn the_same_text_from_two_players_is_one_board(server: &TestServer) {
    let (a, b) = (server.create_save().await, server.create_save().await);
    let pasted_a = LoadedText::new(PASTED_ZH).unwrap();
    let pasted_b =
        LoadedText::new(" 学而时习之，不亦说乎？ 有朋自远方来，\u{200b}不亦乐乎？ ").unwrap();
    assert_eq!(pasted_a, pasted_b);
    let t = MONDAY_2026_11_30_UTC8;
    let game_a = text_game(&pasted_a, 80, 1, t);
    let game_b = text_game(&pasted_b, 120, 2, t + 1_000);
    let ack_a = submit(server, a.token, &game_a).await;
    let ack_b = submit(server, b.token, &game_b).await;
    for (ack, game) in [(&ack_a, &game_a), (&ack_b, &game_b)] {
        assert!(ack.improved && !ack.held && !ack.weekly_accepted);
        assert_eq!(ack.best, value_of(game));
        assert_eq!(ack.first_attempt, Some(true));
        assert!(ack.code.as_ref().is_some_and(|code| code.len() == 6));
    }
    assert_ne!(ack_a.code, ack_b.code);
    let short = pasted_a.hash().short();
    for ranking in ["best", "first"] {
        let board = text_board(server, &short, ranking).await;
        assert_eq!(board.board, format!("text:{}:{ranking}", pasted_a.hash()));
        assert_eq!(board.mode, Mode::Zh);
        let lines: Vec<(i64, Option<String>)> = board
            .entries
            .iter()
            .map(|entry| (entry.value, entry.code.clone()))
            .collect();
        assert_eq!(
            lines,
            vec![
                (value_of(&game_b), ack_b.code.clone()),
                (value_of(&game_a), ack_a.code.clone())
            ],
            "{ranking}"
        );
    }
    // The full hash names the same board.
    let full = text_board(server, &pasted_a.hash().to_string(), "best").await;
    assert_eq!(full.entries.len(), 2);
    assert_eq!(server.count_rows("texts").await, 1);
    let stored: StoredTextAnswer =
        serde_json::from_value(get_json(server, &format!("/api/texts/{short}")).await).unwrap();
    assert_eq!(
        (stored.text.as_str(), stored.hash, stored.mode),
        (pasted_a.as_str(), pasted_a.hash().to_string(), Mode::Zh)
    );
    // Anyone can paste anything: never on the mode's public boards.
    assert!(
        leaderboard(server, "mode=zh&board=alltime", None)
            .await
            .entries
            .is_empty()
    );
    // A text no one played: 404; a text one 字 different: another board.
    let other = LoadedText::new("学而时习之，不亦悦乎？有朋自远方来，不亦乐乎？").unwrap();
    let response = server
        .send(
            Request::get(format!(
                "/api/boards?text={}&ranking=best",
                other.hash().short()
            ))
            .body(Body::empty())
            .unwrap(),
        )
        .await;
    assert_error(response, 404, "TEXT_NOT_FOUND").await;
}

/// 首打 keeps the first completed attempt against a later, faster one and against
/// resends; the best board takes the faster one; an earlier attempt that arrives
/// late (played offline) is the first.
pub async fn the_first_attempt_holds(server: &TestServer) {
    let save = server.create_save().await;
    let text = LoadedText::new(PASTED_ZH).unwrap();
    let t = MONDAY_2026_11_30_UTC8 + 3_600_000;
    server.clock.set(t + 10 * 60_000);
    let slow = text_game(&text, 60, 1, t);
    let fast = text_game(&text, 110, 2, t + 60_000);
    assert!(value_of(&fast) > value_of(&slow));
    let first = submit(server, save.token, &slow).await;
    assert_eq!(first.first_attempt, Some(true));
    let later = submit(server, save.token, &fast).await;
    assert_eq!(later.first_attempt, Some(false));
    assert!(
        later.improved,
        "{later:?} {} {}",
        value_of(&slow),
        value_of(&fast)
    );
    assert_eq!(later.best, value_of(&fast));
    // Resends of either game change nothing and answer as before.
    let resent_fast = submit(server, save.token, &fast).await;
    assert_eq!(resent_fast, later);
    let resent_slow = submit(server, save.token, &slow).await;
    assert_eq!(resent_slow.first_attempt, Some(true));
    assert_eq!(resent_slow.code, first.code);
    let short = text.hash().short();
    let first_board = text_board(server, &short, "first").await;
    assert_eq!(first_board.ranking, Ranking::First);
    assert_eq!(
        first_board
            .entries
            .iter()
            .map(|entry| (entry.value, entry.played_at))
            .collect::<Vec<_>>(),
        vec![(value_of(&slow), t)]
    );
    let best_board = text_board(server, &short, "best").await;
    assert_eq!(best_board.entries[0].value, value_of(&fast));
    assert_eq!(best_board.entries.len(), 1);
    // A game played before both, offline, arrives now: it was the first attempt.
    let offline = text_game(&text, 50, 3, t - 60_000);
    let ack = submit(server, save.token, &offline).await;
    assert_eq!((ack.first_attempt, ack.improved), (Some(true), false));
    let first_board = text_board(server, &short, "first").await;
    assert_eq!(first_board.entries[0].played_at, t - 60_000);
    assert_eq!(first_board.entries[0].code, ack.code);
}

/// The day's race counts a game on that day's 首打 board when it reaches the server
/// within 48 hours of being played (inclusive); later, only on the mode's boards.
/// A past day's board stays readable.
pub async fn a_late_daily_result_goes_only_to_the_best_boards(server: &TestServer) {
    let (on_time, late) = (server.create_save().await, server.create_save().await);
    let noon = MONDAY_2026_11_30_UTC8 + 12 * 3_600_000;
    let day = race_day(noon);
    let hours = |h: i64| h * 3_600_000;
    let game = daily_game(day, 70, 1, noon);
    server.clock.set(noon + hours(48));
    let ack = submit(server, on_time.token, &game).await;
    assert_eq!(ack.first_attempt, Some(true), "exactly 48 hours counts");
    let late_game = daily_game(day, 90, 2, noon);
    server.clock.set(noon + hours(48) + 1);
    let ack = submit(server, late.token, &late_game).await;
    assert_eq!(ack.first_attempt, None, "a millisecond later does not");
    assert!(ack.improved);
    let board: TextBoard =
        serde_json::from_value(get_json(server, &format!("/api/boards?daily={day}&lang=zh")).await)
            .unwrap();
    assert_eq!(board.board, format!("daily:zh:{day}"));
    assert_eq!(
        board.entries.iter().map(|e| e.value).collect::<Vec<_>>(),
        vec![value_of(&game)]
    );
    let alltime = leaderboard(server, "mode=zh&board=alltime", None).await;
    let mut values: Vec<i64> = alltime.entries.iter().map(|e| e.value).collect();
    values.sort_unstable();
    let mut expected = vec![value_of(&game), value_of(&late_game)];
    expected.sort_unstable();
    assert_eq!(values, expected, "both count on the mode's boards");
    let english: TextBoard =
        serde_json::from_value(get_json(server, &format!("/api/boards?daily={day}&lang=en")).await)
            .unwrap();
    assert!(english.entries.is_empty());
}

async fn replay_of(server: &TestServer, code: &str) -> axum::http::Response<Body> {
    server
        .send(
            Request::get(format!("/api/results/{code}/replay"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
}

/// What [`the_replay_serves_public_results_only`] needs: `zh` results from 100 字/分
/// on wait for review.
pub fn replay_options(options: Options) -> Options {
    let mut review = Thresholds::default();
    review.set(Mode::Zh, 100);
    Options { review, ..options }
}

/// The replay of a public result is exactly its stored log and prompt; a held
/// result's, a hidden player's and an unknown code's are 404. The server holds `zh`
/// from 100 字/分 ([`replay_options`]).
pub async fn the_replay_serves_public_results_only(server: &TestServer) {
    let save = server.create_save().await;
    let text = LoadedText::new(PASTED_ZH).unwrap();
    let fast = text_game(&text, 200, 8, MONDAY_2026_11_30_UTC8 - 60_000);
    assert!(value_of(&fast) >= 10_000, "{}", value_of(&fast));
    let held: ScoreAck = submit(server, save.token, &fast).await;
    let game = text_game(&text, 60, 7, MONDAY_2026_11_30_UTC8);
    assert!(value_of(&game) < 10_000, "{}", value_of(&game));
    let ack = submit(server, save.token, &game).await;
    assert!(!ack.held);
    let code = ack.code.unwrap();
    let response = replay_of(server, &code).await;
    assert_eq!(response.status(), 200);
    let body = body_json(response).await;
    assert_eq!(body["input"], game["input"], "the log exactly as sent");
    assert_eq!(body["prompt"], game["prompt"]);
    let replay: ResultReplay = serde_json::from_value(body).unwrap();
    let profile = super::scenarios::me(server, save.token).await;
    assert_eq!(
        (
            replay.mode,
            replay.value,
            replay.played_at,
            replay.display_name
        ),
        (
            Mode::Zh,
            value_of(&game),
            MONDAY_2026_11_30_UTC8,
            profile.profile.display_name
        )
    );
    let held_code = held.code.as_deref().expect("a held result has a code");
    assert!(held.held);
    assert_error(replay_of(server, held_code).await, 404, "RESULT_NOT_FOUND").await;
    for unknown in ["222222", &code.to_lowercase(), "nope"] {
        if unknown != code {
            assert_error(replay_of(server, unknown).await, 404, "RESULT_NOT_FOUND").await;
        }
    }
    // Hidden by an operator: off the boards, and its replays with it.
    let store = server.own_store().await;
    assert!(store.set_hidden(profile.player_id, true).await.unwrap());
    assert_error(replay_of(server, &code).await, 404, "RESULT_NOT_FOUND").await;
    assert!(
        text_board(server, &text.hash().short(), "best")
            .await
            .entries
            .is_empty()
    );
    assert!(store.set_hidden(profile.player_id, false).await.unwrap());
    assert_eq!(replay_of(server, &code).await.status(), 200);
    assert_eq!(
        text_board(server, &text.hash().short(), "first")
            .await
            .entries
            .len(),
        1
    );
}
