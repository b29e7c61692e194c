//! `keydo-server admin ...`: moderation on the live database, SQLite or PostgreSQL,
//! while the server runs (docs/replay.md).
//!
//! - `held`: results waiting for review, oldest first;
//! - `queue`: the review queue: held results grouped by player, best first, with the
//!   player's public best and how many results they have;
//! - `replay <player> <score>`: what a held result's kept log typed, and when;
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
use crate::replay_view::{self, received, speed};
use crate::store::{Approval, Location, Store};
use crate::store::{ListedResult, Listing};
use std::io::Write;
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
        AdminCommand::Queue { limit } => {
            let queue = store.list_results(Listing::Queue, i64::from(limit)).await?;
            Ok(write!(out, "{}", queue_text(&queue))?)
        }
        AdminCommand::Replay {
            player_id,
            score_id,
        } => match store.kept_log(player_id, score_id).await? {
            Some(kept) => Ok(write!(out, "{}", replay_view::render(&kept)?)?),
            None => anyhow::bail!(
                "player {player_id} has no result {score_id} with a kept log (only held results keep theirs)"
            ),
        },
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

/// The review queue, one block per player (in the queue's order): the player, then
/// their held results, each with the figures that decide it (docs/replay.md).
fn queue_text(queue: &[ListedResult]) -> String {
    if queue.is_empty() {
        return "nothing waits for review\n".to_owned();
    }
    let mut text = String::new();
    let mut player = None;
    for result in queue {
        if player != Some(result.player_id) {
            player = Some(result.player_id);
            text.push_str(&format!(
                "player {} \"{}\", {} verified results\n",
                result.player_id,
                result.display_name.escape_debug(),
                result.player_results
            ));
        }
        let public_best = result
            .public_best
            .map_or_else(|| "none".to_owned(), |best| speed(result.mode, best));
        text.push_str(&format!(
            "  {} {}, holds {}, public best {public_best}, received {}, score {}\n",
            result.mode,
            speed(result.mode, result.value),
            result.holds,
            received(result.received_at),
            result.score_id,
        ));
    }
    text
}

fn line(result: &ListedResult) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        received(result.received_at),
        result.player_id,
        result.display_name.escape_debug(),
        result.score_id,
        result.mode,
        speed(result.mode, result.value),
        result.state.id(),
        result.holds
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::ResultState;
    use keydo_core::Mode;

    fn held(player: u128, name: &str, mode: Mode, value: i64, best: Option<i64>) -> ListedResult {
        ListedResult {
            received_at: 1_795_968_000_000,
            player_id: Uuid::from_u128(player),
            display_name: name.into(),
            score_id: Uuid::from_u128(value as u128),
            mode,
            value,
            state: ResultState::Held,
            holds: "speed".into(),
            public_best: best,
            player_results: 3,
        }
    }

    #[test]
    fn the_queue_reads_one_block_per_player_in_its_order() {
        let queue = [
            held(2, "Bo \"B\"", Mode::Words, 28_012, None),
            held(1, "Ann", Mode::Words, 24_050, Some(9_034)),
            held(1, "Ann", Mode::Zh, 23_000, None),
        ];
        let text = queue_text(&queue);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5, "{text}");
        assert_eq!(
            lines[0],
            format!(
                "player {} \"Bo \\\"B\\\"\", 3 verified results",
                Uuid::from_u128(2)
            )
        );
        assert_eq!(
            lines[1],
            format!(
                "  words 280.12 WPM, holds speed, public best none, received \
                 2026-11-29T16:00:00Z, score {}",
                Uuid::from_u128(28_012)
            )
        );
        assert!(lines[2].starts_with(&format!("player {} \"Ann\"", Uuid::from_u128(1))));
        assert!(lines[3].contains("240.50 WPM, holds speed, public best 90.34 WPM"));
        assert!(lines[4].starts_with("  zh 230.00 字/分"), "{}", lines[4]);
        assert_eq!(queue_text(&[]), "nothing waits for review\n");
    }
}
