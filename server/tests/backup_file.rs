//! How `keydo-server backup` writes its file: private (0600), whole or not at all,
//! never onto an existing file and never through a symbolic link.

mod common;

use common::TestServer;
use keydo_server::backup::{self, BackupError};
use keydo_server::store::Location;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

/// The names in `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[tokio::test]
async fn a_backup_is_private_whole_and_alone_in_its_directory() {
    let server = TestServer::sqlite().await;
    server.create_save().await;
    let backups = TempDir::new().unwrap();
    let file = backups.path().join("keydo-backup.sqlite3");
    // Through the command, with a umask that would let everyone read a new file.
    let output = Command::new("sh")
        .arg("-c")
        .arg("umask 000 && exec \"$0\" backup \"$1\" --data-dir \"$2\"")
        .arg(env!("CARGO_BIN_EXE_keydo-server"))
        .arg(&file)
        .arg(server.data_dir())
        .env_remove("KEYDO_DATABASE_URL")
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");

    let mode = std::fs::metadata(&file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    assert_eq!(names_in(backups.path()), ["keydo-backup.sqlite3"]);
    let db = rusqlite::Connection::open(&file).unwrap();
    let integrity: String = db
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    let players: i64 = db
        .query_row("SELECT COUNT(*) FROM players", [], |row| row.get(0))
        .unwrap();
    assert_eq!(players, 1);
}

#[tokio::test]
async fn a_backup_is_never_written_through_a_symbolic_link() {
    let server = TestServer::sqlite().await;
    let backups = TempDir::new().unwrap();
    let elsewhere = backups.path().join("elsewhere.sqlite3");
    let existing = backups.path().join("existing.txt");
    std::fs::write(&existing, "keep me").unwrap();
    let dangling = backups.path().join("dangling.sqlite3");
    let to_existing = backups.path().join("to-existing.sqlite3");
    symlink(&elsewhere, &dangling).unwrap();
    symlink(&existing, &to_existing).unwrap();

    for link in [&dangling, &to_existing] {
        let refused = backup::write(&server.location, link).unwrap_err();
        assert!(matches!(refused, BackupError::Symlink(_)), "{refused}");
        assert!(refused.to_string().contains("symbolic link"), "{refused}");
    }
    assert!(!elsewhere.exists(), "nothing was written through the link");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), "keep me");
    assert_eq!(
        names_in(backups.path()),
        ["dangling.sqlite3", "existing.txt", "to-existing.sqlite3"]
    );
}

#[tokio::test]
async fn a_backup_never_replaces_a_file() {
    let server = TestServer::sqlite().await;
    let backups = TempDir::new().unwrap();
    let existing = backups.path().join("keydo-backup.sqlite3");
    std::fs::write(&existing, "an older backup").unwrap();
    let refused = backup::write(&server.location, &existing).unwrap_err();
    assert!(matches!(refused, BackupError::Exists(_)), "{refused}");
    assert_eq!(
        std::fs::read_to_string(&existing).unwrap(),
        "an older backup"
    );
    assert_eq!(names_in(backups.path()), ["keydo-backup.sqlite3"]);
}

#[test]
fn a_failed_backup_leaves_nothing_behind() {
    let scratch = TempDir::new().unwrap();
    let not_a_database = scratch.path().join("keydo.sqlite3");
    std::fs::write(&not_a_database, "this is not a database file at all").unwrap();
    for source in [scratch.path().join("missing.sqlite3"), not_a_database] {
        let backups = TempDir::new().unwrap();
        let file = backups.path().join("keydo-backup.sqlite3");
        let failed = backup::write(&Location::Sqlite(source.clone()), &file).unwrap_err();
        assert!(matches!(failed, BackupError::Store(_)), "{failed}");
        assert_eq!(names_in(backups.path()), Vec::<String>::new(), "{source:?}");
    }
    let backups = TempDir::new().unwrap();
    let postgres = Location::Postgres("postgres://nobody@127.0.0.1:1/keydo".into());
    let refused = backup::write(&postgres, &backups.path().join("b.sqlite3")).unwrap_err();
    assert!(refused.to_string().contains("pg_dump"), "{refused}");
    assert_eq!(names_in(backups.path()), Vec::<String>::new());
}
