//! The word tests' options on SQLite (the same scenarios run on PostgreSQL in
//! `postgres.rs`): each option is verified as played and keeps its own best.

mod common;

use common::TestServer;
use common::options;

#[tokio::test]
async fn each_option_keeps_its_own_best() {
    options::each_option_keeps_its_own_best(&TestServer::sqlite().await).await;
}

#[tokio::test]
async fn a_claim_of_other_options_is_refused() {
    options::a_claim_of_other_options_is_refused(&TestServer::sqlite().await).await;
}
