//! The scenarios of `api.rs` (and `genda.rs`, `options.rs`) on PostgreSQL. They need a server: run them through
//! `scripts/with-postgres.sh`, which starts a throwaway one and sets
//! `KEYDO_TEST_POSTGRES_URL`; without it they print why and pass vacuously, except
//! in CI (`CI=true`), where a cluster that did not start fails them.

mod common;

use common::{Options, TestServer, postgres_admin_url, scenarios};

async fn postgres_server(test: &str) -> Option<TestServer> {
    let Some(admin_url) = postgres_admin_url() else {
        eprintln!(
            "skipping {test}: KEYDO_TEST_POSTGRES_URL is unset (see scripts/with-postgres.sh)"
        );
        return None;
    };
    Some(
        TestServer::start(Options {
            postgres_admin_url: Some(admin_url),
            ..Options::default()
        })
        .await,
    )
}

#[tokio::test]
async fn saves_are_created_and_shown() {
    if let Some(server) = postgres_server("saves_are_created_and_shown").await {
        scenarios::saves_are_created_and_shown(&server).await;
    }
}

#[tokio::test]
async fn the_same_game_sent_100_times_is_one_row() {
    if let Some(server) = postgres_server("the_same_game_sent_100_times_is_one_row").await {
        scenarios::the_same_game_sent_100_times_is_one_row(&server).await;
    }
}

#[tokio::test]
async fn a_lower_score_is_a_no_op() {
    if let Some(server) = postgres_server("a_lower_score_is_a_no_op").await {
        scenarios::a_lower_score_is_a_no_op(&server).await;
    }
}

#[tokio::test]
async fn weekly_boards_follow_the_servers_utc8_week() {
    if let Some(server) = postgres_server("weekly_boards_follow_the_servers_utc8_week").await {
        scenarios::weekly_boards_follow_the_servers_utc8_week(&server).await;
    }
}

#[tokio::test]
async fn leaderboards_are_ordered_and_ties_go_to_the_first() {
    if let Some(server) = postgres_server("leaderboards_are_ordered_and_ties_go_to_the_first").await
    {
        scenarios::leaderboards_are_ordered_and_ties_go_to_the_first(&server).await;
    }
}

#[tokio::test]
async fn options_each_option_keeps_its_own_best() {
    if let Some(server) = postgres_server("options_each_option_keeps_its_own_best").await {
        common::options::each_option_keeps_its_own_best(&server).await;
    }
}

#[tokio::test]
async fn options_a_claim_of_other_options_is_refused() {
    if let Some(server) = postgres_server("options_a_claim_of_other_options_is_refused").await {
        common::options::a_claim_of_other_options_is_refused(&server).await;
    }
}

#[tokio::test]
async fn genda_a_forged_speed_on_a_pasted_text_is_refused() {
    if let Some(server) = postgres_server("genda_a_forged_speed_on_a_pasted_text_is_refused").await
    {
        common::genda::a_forged_speed_on_a_pasted_text_is_refused(&server).await;
    }
}

#[tokio::test]
async fn genda_the_same_text_from_two_players_is_one_board() {
    if let Some(server) = postgres_server("genda_the_same_text_from_two_players_is_one_board").await
    {
        common::genda::the_same_text_from_two_players_is_one_board(&server).await;
    }
}

#[tokio::test]
async fn genda_the_first_attempt_holds() {
    if let Some(server) = postgres_server("genda_the_first_attempt_holds").await {
        common::genda::the_first_attempt_holds(&server).await;
    }
}

#[tokio::test]
async fn genda_a_late_daily_result_goes_only_to_the_best_boards() {
    if let Some(server) =
        postgres_server("genda_a_late_daily_result_goes_only_to_the_best_boards").await
    {
        common::genda::a_late_daily_result_goes_only_to_the_best_boards(&server).await;
    }
}

#[tokio::test]
async fn genda_the_replay_serves_public_results_only() {
    let Some(admin_url) = postgres_admin_url() else {
        eprintln!("skipping genda_the_replay_serves_public_results_only: no PostgreSQL");
        return;
    };
    let server = TestServer::start(common::genda::replay_options(Options {
        postgres_admin_url: Some(admin_url),
        ..Options::default()
    }))
    .await;
    common::genda::the_replay_serves_public_results_only(&server).await;
}
