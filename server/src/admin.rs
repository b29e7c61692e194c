//! `keydo-server admin ...`: moderation on the live database, SQLite or PostgreSQL,
//! while the server runs (docs/replay.md).
//!
//! - `held`: results waiting for review, oldest first;
//! - `suspicious`: results whose timing no person produces, newest first;
//! - `approve <player> <score>`: a held result joins the public boards;
//! - `hide <player>` / `unhide <player>`: off the public boards (their results still
//!   count for them) and back;
//! - `reset-name <player> [<name>]`: an operator's name (or a generated one), which the
//!   player's own changes made before it do not override (`server-wins`, through
//!   `ProfileRecord::set_by_operator`).

use crate::cli::{AdminArgs, AdminCommand};
use crate::clock::{Clock, SystemClock};
use crate::names::{self, ResetError};
use crate::store::{Approval, Location, Store};
use crate::store::{ListedResult, Listing};
use keydo_core::Mode;
use std::io::Write;
use std::time::{Duration, UNIX_EPOCH};
use uuid::Uuid;

/// Runs one admin command, writing what it did to `out`.
pub async fn run(args: AdminArgs, out: &mut impl Write) -> anyhow::Result<()> {
    let location = Location::new(
        &args.database.data_dir,
        args.database.database_url.as_deref(),
    )?;
    let store = tokio::task::spawn_blocking(move || Store::open(&location)).await??;
    match args.command {
        AdminCommand::Held { limit } => list(&store, Listing::Held, limit, out).await,
        AdminCommand::Suspicious { limit } => list(&store, Listing::Suspicious, limit, out).await,
        AdminCommand::Approve {
            player_id,
            score_id,
        } => match store.approve(player_id, score_id).await? {
            Approval::Approved(result) => Ok(writeln!(
                out,
                "approved {player_id} {score_id}: {} {} is public",
                result.mode,
                speed(result.mode, result.value)
            )?),
            Approval::NotHeld => {
                anyhow::bail!("no held result {score_id} of player {player_id}")
            }
        },
        AdminCommand::Hide { player_id } => set_hidden(&store, player_id, true, out).await,
        AdminCommand::Unhide { player_id } => set_hidden(&store, player_id, false, out).await,
        AdminCommand::ResetName { player_id, name } => {
            let now = SystemClock.now_ms();
            match names::reset(&store, player_id, name.as_deref(), now).await {
                Ok((name, version)) => Ok(writeln!(
                    out,
                    "player {player_id} is now named {name:?} (set by an operator; profile version {version})"
                )?),
                Err(ResetError::Store(error)) => Err(error.into()),
                Err(refused) => anyhow::bail!("{refused}"),
            }
        }
    }
}

async fn set_hidden(
    store: &Store,
    player_id: Uuid,
    hidden: bool,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    if !store.set_hidden(player_id, hidden).await? {
        anyhow::bail!("no player has the id {player_id}");
    }
    let now = if hidden { "hidden from" } else { "shown on" };
    Ok(writeln!(
        out,
        "player {player_id} is {now} the public boards"
    )?)
}

/// One tab-separated line per result, under a header.
async fn list(
    store: &Store,
    listing: Listing,
    limit: u32,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let results = store.list_results(listing, i64::from(limit)).await?;
    writeln!(
        out,
        "received (UTC)\tplayer\tname\tscore\tmode\tspeed\tstate\tholds"
    )?;
    for result in &results {
        writeln!(out, "{}", line(result))?;
    }
    Ok(())
}

fn line(result: &ListedResult) -> String {
    let received = UNIX_EPOCH + Duration::from_millis(result.received_at.max(0) as u64);
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        humantime::format_rfc3339_seconds(received),
        result.player_id,
        result.display_name.escape_debug(),
        result.score_id,
        result.mode,
        speed(result.mode, result.value),
        result.state.id(),
        result.holds
    )
}

/// A value as the speed it stands for: `212.50 WPM`, `230.00 字/分`.
fn speed(mode: Mode, value: i64) -> String {
    let unit = if mode == Mode::Zh { "字/分" } else { "WPM" };
    format!("{}.{:02} {unit}", value / 100, value % 100)
}
