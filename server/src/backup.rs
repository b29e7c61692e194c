//! `keydo-server backup <file>`: a consistent copy of the live database.

use crate::cli::BackupArgs;
use crate::store::{self, Location};

pub fn run(args: &BackupArgs) -> anyhow::Result<()> {
    let location = Location::new(
        &args.database.data_dir,
        args.database.database_url.as_deref(),
    )?;
    store::backup(&location, &args.file)?;
    tracing::info!(file = %args.file.display(), "backup written");
    Ok(())
}
