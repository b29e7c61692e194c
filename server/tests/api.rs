//! Saves, scores and leaderboards on SQLite (the same scenarios run on PostgreSQL in
//! `postgres.rs`).

mod common;

use common::{TestServer, scenarios};

#[tokio::test]
async fn saves_are_created_and_shown() {
    scenarios::saves_are_created_and_shown(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn the_same_game_sent_100_times_is_one_row() {
    scenarios::the_same_game_sent_100_times_is_one_row(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn a_lower_score_is_a_no_op() {
    scenarios::a_lower_score_is_a_no_op(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn weekly_boards_follow_the_servers_utc8_week() {
    scenarios::weekly_boards_follow_the_servers_utc8_week(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn leaderboards_are_ordered_and_ties_go_to_the_first() {
    scenarios::leaderboards_are_ordered_and_ties_go_to_the_first(&TestServer::sqlite().await).await;
}
