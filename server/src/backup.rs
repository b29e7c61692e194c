//! `keydo-server backup <file>`: a consistent copy of the live database, written so
//! that `<file>` is either absent or whole and private.
//!
//! The copy goes to a new temporary file in `<file>`'s directory, created with mode
//! 0600 (a backup holds every save's token hash), is fsynced, then renamed to `<file>`
//! without ever replacing anything there, and the directory is fsynced so the rename
//! itself survives a power loss. An existing `<file>`, or a symbolic link by that
//! name (even a dangling one), is refused: nothing is written through a link.

use crate::cli::BackupArgs;
use crate::store::{self, Location, StoreError};
use std::fs::{File, Permissions};
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Only the owner may read a backup.
const BACKUP_MODE: u32 = 0o600;

/// Why a backup was not written. Nothing is left behind in any of these cases.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("the backup file {0} already exists")]
    Exists(PathBuf),
    #[error("{0} is a symbolic link; backups are never written through links")]
    Symlink(PathBuf),
    #[error("writing the backup {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(transparent)]
    Store(#[from] StoreError),
}

pub fn run(args: &BackupArgs) -> anyhow::Result<()> {
    let location = Location::new(
        &args.database.data_dir,
        args.database.database_url.as_deref(),
    )?;
    write(&location, &args.file)?;
    tracing::info!(file = %args.file.display(), "backup written");
    Ok(())
}

/// Writes a backup of the database at `location` to `file` (see the module's doc).
pub fn write(location: &Location, file: &Path) -> Result<(), BackupError> {
    refuse_existing(file)?;
    let io_error = |source| BackupError::Io {
        path: file.to_owned(),
        source,
    };
    let directory = match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let temporary = tempfile::Builder::new()
        .prefix(".keydo-backup-")
        .suffix(".tmp")
        .permissions(Permissions::from_mode(BACKUP_MODE))
        .tempfile_in(directory)
        .map_err(io_error)?;
    store::backup(location, temporary.path())?;
    // Reopening checks the name still leads to the file created above.
    temporary
        .reopen()
        .and_then(|written| written.sync_all())
        .map_err(io_error)?;
    temporary.persist_noclobber(file).map_err(|error| {
        match refuse_existing(file) {
            // Something appeared under the name meanwhile.
            Err(refused) => refused,
            Ok(()) => io_error(error.error),
        }
    })?;
    File::open(directory)
        .and_then(|directory| directory.sync_all())
        .map_err(io_error)
}

/// Err when anything, a link included, already has the name `file`.
fn refuse_existing(file: &Path) -> Result<(), BackupError> {
    match std::fs::symlink_metadata(file) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            Err(BackupError::Symlink(file.to_owned()))
        }
        Ok(_) => Err(BackupError::Exists(file.to_owned())),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(BackupError::Io {
            path: file.to_owned(),
            source,
        }),
    }
}
