//! The scenarios of `api.rs` on PostgreSQL. They need a server: run them through
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
