//! `keydo-server`: see `keydo-server --help`.

use clap::Parser;
use keydo_server::cli::{Cli, Command};
use keydo_server::{backup, serve};
use std::io::IsTerminal;
use tracing_subscriber::EnvFilter;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let cli = Cli::parse();
    match cli.command {
        None => serve::run(cli.serve).await,
        Some(Command::Serve(args)) => serve::run(*args).await,
        Some(Command::Backup(args)) => backup::run(&args),
    }
}
