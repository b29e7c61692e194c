//! The store's write batching: concurrent writes share commits, and one failing write
//! leaves the others in its batch intact.

use keydo_server::store::{Location, Store};
use keydo_server::store::{NewSave, Player};
use std::path::PathBuf;
use uuid::Uuid;

/// A store on a new SQLite file at `path`, its migrations applied.
async fn open_sqlite(path: PathBuf) -> Store {
    tokio::task::spawn_blocking(move || Store::open(&Location::Sqlite(path)))
        .await
        .unwrap()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_write_does_not_undo_the_rest_of_its_batch() {
    let data = tempfile::TempDir::new().unwrap();
    let path = data.path().join("keydo.sqlite3");
    let store = open_sqlite(path.clone()).await;
    // Every fifth save reuses the first one's token hash, which must be unique.
    let writes = (0..100).map(|n| {
        let store = store.clone();
        let token_sha256 = if n % 5 == 0 {
            "shared".to_owned()
        } else {
            format!("token-{n}")
        };
        let save = NewSave {
            player: Player {
                player_id: Uuid::from_u128(n),
                display_name: format!("P{n}"),
                version: 1,
            },
            name_key: format!("p{n}"),
            token_sha256,
            device_label: "Browser".into(),
            created_at: 0,
        };
        tokio::spawn(async move { store.create_save(save, None).await.is_ok() })
    });
    let succeeded = futures_util::future::join_all(writes)
        .await
        .into_iter()
        .map(Result::unwrap);
    let succeeded = succeeded.filter(|ok| *ok).count();
    assert_eq!(
        succeeded,
        80 + 1,
        "every unique save and one of the shared ones"
    );

    let db = rusqlite::Connection::open(&path).unwrap();
    let stored: i64 = db
        .query_row("SELECT COUNT(*) FROM players", [], |row| row.get(0))
        .unwrap();
    assert_eq!(usize::try_from(stored).unwrap(), succeeded);
}

/// Only held and suspicious results are indexed for the operator's lists, and those
/// lists' filters use these partial indexes (migration V10).
#[tokio::test]
async fn held_and_suspicious_results_have_partial_indexes() {
    let data = tempfile::TempDir::new().unwrap();
    let path = data.path().join("keydo.sqlite3");
    let store = open_sqlite(path.clone()).await;
    drop(store);
    let db = rusqlite::Connection::open(&path).unwrap();
    for (index, filter) in [
        ("results_held", "state = 'held'"),
        ("results_suspicious", "suspicious = 1"),
    ] {
        let definition: String = db
            .query_row(
                "SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?1",
                [index],
                |row| row.get(0),
            )
            .unwrap();
        assert!(
            definition.ends_with(&format!("WHERE {filter}")),
            "{definition}"
        );
        let plan: Vec<String> = db
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT score_id FROM results WHERE {filter}
                 ORDER BY received_at LIMIT 10"
            ))
            .unwrap()
            .query_map([], |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            plan.iter().any(|step| step.contains(index)),
            "{filter}: {plan:?}"
        );
    }
    let whole_table: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index'
             AND name IN ('results_by_state')",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(whole_table, 0, "the index of every result's state is gone");
}
