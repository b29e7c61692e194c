//! Ranks from bucket counts (docs/operations.md, "Ranks at a million"): on a seeded
//! board of 10,000 players, every sampled player's served rank equals a count of the
//! rows above them, all time and weekly, before and after more games (better and not)
//! and the sweeper's folds; and the rank's plan reads index ranges, never a whole board.

mod common;

use common::{Options, TestServer};
use keydo_core::Mode;
use keydo_server::store::{Best, Board, BoardFixture, Game, Store};
use uuid::Uuid;

const FIXTURE: BoardFixture = BoardFixture {
    players: 10_000,
    seed: 26,
    last_week: 2_920,
    weeks: 6,
};

/// Every 97th player: spread over the whole board.
fn sampled() -> impl Iterator<Item = u32> {
    (0..FIXTURE.players).step_by(97)
}

/// Checks the served rank of every sampled player on each board they are on against
/// a full count; returns how many ranks it compared.
async fn compare_ranks(store: &Store) -> usize {
    let mut compared = 0;
    for n in sampled() {
        let (player_id, _) = FIXTURE.identity(n);
        for best in store.bests(player_id, FIXTURE.last_week).await.unwrap().0 {
            let mut boards = vec![Board::AllTime];
            if best.weekly.is_some() {
                boards.push(Board::Week(FIXTURE.last_week));
            }
            for board in boards {
                let (_, standing) = store
                    .leaderboard(board, best.mode, 1, Some(player_id))
                    .await
                    .unwrap();
                let counted = store
                    .rank_by_full_count(board, best.mode, player_id)
                    .await
                    .unwrap();
                assert_eq!(
                    standing.map(|standing| standing.rank),
                    counted,
                    "player {n}, {:?} {board:?}",
                    best.mode
                );
                compared += 1;
            }
        }
    }
    compared
}

/// A new game of the `k`th sampled player, `n`: in a mode that depends on the player,
/// worth a value that grows with `k`, moved by `offset` (and played `offset` ms later
/// when `offset` is not 0).
fn sampled_game(k: usize, n: u32, offset: i64) -> Game {
    let (player_id, _) = FIXTURE.identity(n);
    let k = i64::try_from(k).unwrap();
    Game {
        player_id,
        mode: Mode::ALL[n as usize % Mode::ALL.len()],
        score_id: Uuid::new_v4(),
        value: 3_000 + 97 * k + offset,
        achieved_at: 1_000 * k + offset.abs(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rank_is_the_count_of_the_rows_above_on_a_seeded_board() {
    let test = "a_rank_is_the_count_of_the_rows_above_on_a_seeded_board";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let store = server.own_store().await;
        let games = store.load_board_fixture(FIXTURE).await.unwrap();
        assert!(games > 90_000, "{games} games");
        assert_eq!(store.rank_count_differences().await.unwrap(), 0);
        assert!(compare_ranks(&store).await > 200);

        // New bests move players between buckets, append deltas, and leave ranks exact
        // before the sweeper runs and after.
        let mut standing = Vec::new();
        for (k, n) in sampled().enumerate() {
            let game = sampled_game(k, n, 0);
            standing.push(
                store
                    .record_game(game, Some(FIXTURE.last_week))
                    .await
                    .unwrap(),
            );
        }
        assert_eq!(store.rank_count_differences().await.unwrap(), 0);
        compare_ranks(&store).await;

        // A game that does not beat the row keeps it: the answer is the standing best,
        // and no bucket moves.
        for ((k, n), before) in sampled().enumerate().zip(standing) {
            // Just under the game above, and later.
            let game = sampled_game(k, n, -1);
            let kept = |best: Best| Best {
                is_this_game: false,
                ..best
            };
            let recorded = store
                .record_game(game, Some(FIXTURE.last_week))
                .await
                .unwrap();
            assert_eq!(
                (recorded.all_time, recorded.weekly),
                (kept(before.all_time), before.weekly.map(kept))
            );
        }
        assert_eq!(store.rank_count_differences().await.unwrap(), 0);
        compare_ranks(&store).await;
        assert!(store.fold_rank_deltas().await.unwrap() > 0);
        assert_eq!(store.rank_count_differences().await.unwrap(), 0);
        compare_ranks(&store).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rank_plan_reads_index_ranges_not_the_board() {
    let test = "the_rank_plan_reads_index_ranges_not_the_board";
    for server in TestServer::on_every_database(test, Options::default()).await {
        let store = server.own_store().await;
        store.load_board_fixture(FIXTURE).await.unwrap();
        // The slowest sampled player of `time`: a full count would read the whole mode.
        let (player_id, _) = FIXTURE.identity(0);
        store
            .record_game(
                Game {
                    player_id,
                    mode: Mode::Time,
                    score_id: Uuid::new_v4(),
                    value: 100,
                    achieved_at: 0,
                },
                Some(FIXTURE.last_week),
            )
            .await
            .unwrap();
        for board in [Board::AllTime, Board::Week(FIXTURE.last_week)] {
            let plan = store
                .explain_rank(board, Mode::Time, player_id)
                .await
                .unwrap();
            let plan = plan.join("\n");
            // PostgreSQL says "Seq Scan on scores", SQLite "SCAN o" for a whole table.
            for whole in [
                "Seq Scan on scores",
                "Seq Scan on weekly_scores",
                "SCAN o",
                "SCAN me",
            ] {
                assert!(
                    !plan.contains(whole),
                    "{board:?} reads a whole board:\n{plan}"
                );
            }
            let bounded = plan.lines().filter(|line| line.contains("value")).count();
            assert!(bounded >= 2, "{board:?}: no value-bounded range\n{plan}");
        }
    }
}
