//! `keydo-server`: see `keydo-server --help`.

use clap::Parser;
use keydo_server::cli::{Cli, Command};
use keydo_server::{admin, backup, serve};
use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::writer::BoxMakeWriter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    // An admin command's stdout is its answer (scripts read it); its log goes aside.
    let log = if matches!(cli.command, Some(Command::Admin(_))) {
        BoxMakeWriter::new(std::io::stderr)
    } else {
        BoxMakeWriter::new(std::io::stdout)
    };
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_ansi(std::io::stdout().is_terminal())
        .with_writer(log)
        .init();
    match cli.command {
        None => serve::run(cli.serve).await,
        Some(Command::Serve(args)) => serve::run(*args).await,
        Some(Command::Backup(args)) => backup::run(&args),
        Some(Command::Admin(args)) => admin::run(args, &mut std::io::stdout()).await,
    }
}
