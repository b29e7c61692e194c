//! 跟打 on the server, on SQLite (the same scenarios run on PostgreSQL in
//! `postgres.rs`): text boards, 首打, the day's race, result codes and replays, and
//! the limit on new texts.

mod common;

use common::genda::{self, PASTED_ZH, text_game};
use common::scenarios::submit;
use common::{
    MONDAY_2026_11_30_UTC8, Options, TestServer, assert_error, limits, post_json, with_token,
};
use keydo_core::game::corpora::Corpora;
use keydo_core::game::mode::Language;
use keydo_core::text::{LoadedText, cap};
use keydo_core::verify::simulate::longest_text;
use keydo_server::settings::RateLimits;
use std::num::NonZeroU32;

#[tokio::test]
async fn a_forged_speed_on_a_pasted_text_is_refused() {
    let server = TestServer::start(Options {
        logs_spent_once: true,
        ..Options::default()
    })
    .await;
    genda::a_forged_speed_on_a_pasted_text_is_refused(&server).await;
}

#[tokio::test]
async fn the_same_text_from_two_players_is_one_board() {
    genda::the_same_text_from_two_players_is_one_board(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn the_first_attempt_holds() {
    genda::the_first_attempt_holds(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn a_late_daily_result_goes_only_to_the_best_boards() {
    genda::a_late_daily_result_goes_only_to_the_best_boards(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn the_replay_serves_public_results_only() {
    let server = TestServer::start(genda::replay_options(Options::default())).await;
    genda::the_replay_serves_public_results_only(&server).await;
}

/// A text the page would have normalised differently is refused whole: the server
/// hashes and stores only normalised texts (docs/genda.md, "Normalisation").
#[tokio::test]
async fn a_text_not_in_its_normalised_form_is_refused() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    let text = LoadedText::new(PASTED_ZH).unwrap();
    let mut game = text_game(&text, 90, 1, MONDAY_2026_11_30_UTC8);
    let typed = game["prompt"]["text"].as_str().unwrap().to_owned();
    assert_eq!(typed, text.as_str());
    game["prompt"]["text"] = format!(" {typed}").into();
    let response = server
        .send(with_token(post_json("/api/scores", &game), save.token))
        .await;
    assert_error(response, 422, "INVALID_BODY").await;
    assert_eq!(server.count_rows("results").await, 0);
    assert_eq!(server.count_rows("texts").await, 0);
    // The same game on the normalised text is taken.
    game["prompt"]["text"] = typed.into();
    let ack = submit(&server, save.token, &game).await;
    assert_eq!(ack.first_attempt, Some(true));
    assert_eq!(server.count_rows("texts").await, 1);
}

/// The longest text a player may load, in either language, is typed, sent whole and
/// ranked on its board.
#[tokio::test]
async fn the_longest_texts_reach_their_boards() {
    let server = TestServer::sqlite().await;
    let save = server.create_save().await;
    for (n, language) in [Language::Chinese, Language::English]
        .into_iter()
        .enumerate()
    {
        let text = longest_text(Corpora::shipped(), language, 0);
        assert!(text.as_str().chars().count() + 1 >= cap(language));
        let game = text_game(&text, 60, n as u64, MONDAY_2026_11_30_UTC8 + n as i64);
        let ack = submit(&server, save.token, &game).await;
        assert_eq!(ack.first_attempt, Some(true));
        let board = genda::text_board(&server, &text.hash().short(), "best").await;
        assert_eq!(board.entries.len(), 1, "{language:?}");
        assert_eq!(Some(board.entries[0].value), game["value"].as_i64());
    }
}

/// A save may store so many new texts an hour; a text already stored costs nothing.
#[tokio::test]
async fn new_texts_are_limited_per_save() {
    let server = TestServer::start(Options {
        rate_limits: RateLimits {
            texts_per_save_per_hour: NonZeroU32::MIN,
            ..limits(10_000, 10_000, 10_000)
        },
        ..Options::default()
    })
    .await;
    let save = server.create_save().await;
    let t = MONDAY_2026_11_30_UTC8;
    let first = LoadedText::new(PASTED_ZH).unwrap();
    submit(&server, save.token, &text_game(&first, 80, 1, t)).await;
    let second = LoadedText::new("温故而知新，可以为师矣。").unwrap();
    let response = server
        .send(with_token(
            post_json("/api/scores", &text_game(&second, 80, 2, t)),
            save.token,
        ))
        .await;
    let body = assert_error(response, 429, "TOO_MANY_TEXTS").await;
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("new texts")
    );
    assert_eq!(server.count_rows("texts").await, 1);
    // The stored text is played again freely.
    let again = submit(&server, save.token, &text_game(&first, 90, 3, t + 1)).await;
    assert_eq!(again.first_attempt, Some(false));
}
