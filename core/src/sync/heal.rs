//! Restore healing: what a server restored from an older backup lacks, so the client
//! sends it again (docs/sync.md, "Restore healing").
//!
//! The client keeps, per mode, the best result the server has acknowledged of all time
//! and of the latest week ([`Delivered`]). `GET /api/saves/me` answers the server's
//! bests; every kept result better than what the server holds goes back into the
//! outbox ([`missing_on_server`]). The server keeps only the better score, so
//! re-queuing something it already has changes nothing. Only acknowledged results are
//! kept: a result the API refused is never re-queued behind the player's back.

use crate::api::ServerBest;
use crate::sync::outbox::{OutboxEntry, SyncState};

/// How often, at most, a client compares its bests with the server's on its own.
pub const HEAL_INTERVAL_MS: u64 = 24 * 60 * 60 * 1_000;

/// Whether a heal last done at `last_ms` is due again at `now_ms`: never done, a day
/// has passed, or the clock went back since.
pub fn is_heal_due(last_ms: Option<u64>, now_ms: u64) -> bool {
    last_ms.is_none_or(|last| last > now_ms || now_ms - last >= HEAL_INTERVAL_MS)
}

/// Which best an acknowledged result may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BestOf {
    /// The best of all time, per mode.
    Alltime,
    /// The best of the latest week the client delivered in, per mode.
    Weekly,
}

impl BestOf {
    pub const ALL: [BestOf; 2] = [BestOf::Alltime, BestOf::Weekly];

    /// Whether the server acknowledging `acked` makes it the kept best of this board,
    /// over `kept`.
    pub fn improves(self, kept: Option<&OutboxEntry>, acked: &OutboxEntry) -> bool {
        let Some(kept) = kept else { return true };
        match self {
            BestOf::Alltime => acked.beats(kept),
            BestOf::Weekly => {
                acked.week > kept.week || (acked.week == kept.week && acked.beats(kept))
            }
        }
    }

    /// The id used in storage keys.
    pub fn id(self) -> &'static str {
        match self {
            BestOf::Alltime => "alltime",
            BestOf::Weekly => "weekly",
        }
    }
}

/// The acknowledged bests the client keeps: at most one per mode on each board.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    pub alltime: Vec<OutboxEntry>,
    pub weekly: Vec<OutboxEntry>,
}

/// The kept results the server lacks, ready to re-queue (with a fresh sync state):
/// each all-time best above the server's all-time value for its mode, and each weekly
/// best of `server_week` above the server's value for that week. A save the server
/// has just created lacks everything: pass no `server_bests` and the current week.
pub fn missing_on_server(
    server_week: i64,
    server_bests: &[ServerBest],
    delivered: &Delivered,
) -> Vec<OutboxEntry> {
    let server = |entry: &OutboxEntry| server_bests.iter().find(|b| b.mode == entry.mode);
    let alltime = delivered
        .alltime
        .iter()
        .filter(|e| server(e).is_none_or(|b| b.alltime < e.value));
    let weekly = delivered.weekly.iter().filter(|e| {
        e.week == server_week && server(e).and_then(|b| b.weekly).is_none_or(|v| v < e.value)
    });
    let mut missing: Vec<OutboxEntry> = Vec::new();
    for entry in alltime.chain(weekly) {
        if missing.iter().all(|m| m.score_id != entry.score_id) {
            missing.push(OutboxEntry {
                sync: SyncState::default(),
                ..entry.clone()
            });
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::week::week_of;
    use crate::game::mode::Mode;
    use crate::sync::outbox::tests::game as result;

    /// Tuesday 2026-12-01 12:00 UTC+8.
    const NOON: u64 = 1_796_097_600_000;
    const WEEK_MS: u64 = 7 * 24 * 3_600_000;

    fn ids(entries: &[OutboxEntry]) -> Vec<u128> {
        entries.iter().map(|e| e.score_id.as_u128()).collect()
    }

    #[test]
    fn re_queues_what_the_server_lacks_and_nothing_else() {
        let this_week = week_of(NOON as i64);
        let words_alltime = result(1, Mode::Words, 300, NOON - 2 * WEEK_MS);
        let words_weekly = result(2, Mode::Words, 250, NOON);
        let zh_both = result(3, Mode::Zh, 200, NOON);
        let quote_old_week = result(4, Mode::Quote, 100, NOON - WEEK_MS);
        let delivered = Delivered {
            alltime: vec![
                words_alltime.clone(),
                zh_both.clone(),
                quote_old_week.clone(),
            ],
            weekly: vec![
                words_weekly.clone(),
                zh_both.clone(),
                quote_old_week.clone(),
            ],
        };
        let holds = |mode, alltime, weekly| ServerBest {
            mode,
            alltime,
            weekly,
        };

        // The server holds everything: nothing to resend.
        let whole = [
            holds(Mode::Words, words_alltime.value, Some(words_weekly.value)),
            holds(Mode::Zh, zh_both.value, Some(zh_both.value)),
            holds(Mode::Quote, quote_old_week.value, None),
        ];
        assert!(missing_on_server(this_week, &whole, &delivered).is_empty());

        // Restored from a backup before this week's games and the words record.
        let restored = [
            holds(Mode::Words, words_alltime.value - 1, None),
            holds(Mode::Quote, quote_old_week.value, None),
        ];
        let missing = missing_on_server(this_week, &restored, &delivered);
        assert_eq!(ids(&missing), [1, 3, 2], "zh once though it is both bests");
        assert!(missing.iter().all(|e| e.sync == SyncState::default()));

        // A brand-new save lacks everything kept, except weekly bests of other weeks
        // (their all-time twins carry them).
        assert_eq!(
            ids(&missing_on_server(this_week, &[], &delivered)),
            [1, 3, 4, 2]
        );

        // Another device raised the server's bests higher: nothing to resend.
        let top = 1 + [&words_alltime, &zh_both, &quote_old_week]
            .iter()
            .map(|e| e.value)
            .max()
            .unwrap();
        let higher = [
            holds(Mode::Words, top, Some(top)),
            holds(Mode::Zh, top, Some(top)),
            holds(Mode::Quote, top, None),
        ];
        assert!(missing_on_server(this_week, &higher, &delivered).is_empty());
        // A weekly best from a week that is not the server's is never compared.
        assert_eq!(
            ids(&missing_on_server(this_week + 1, &restored, &delivered)),
            [1, 3]
        );
    }

    #[test]
    fn acknowledged_results_keep_the_best_of_each_board() {
        let old = result(1, Mode::Time, 300, NOON - WEEK_MS);
        let lower_now = result(2, Mode::Time, 200, NOON);
        let tie_later = result(3, Mode::Time, 300, NOON);
        assert!(BestOf::Alltime.improves(None, &old));
        assert!(!BestOf::Alltime.improves(Some(&old), &lower_now));
        assert!(!BestOf::Alltime.improves(Some(&old), &tie_later));
        // A new week starts a new weekly best, however low.
        assert!(BestOf::Weekly.improves(Some(&old), &lower_now));
        assert!(!BestOf::Weekly.improves(Some(&lower_now), &old));
        assert!(BestOf::Weekly.improves(Some(&lower_now), &tie_later));
    }

    #[test]
    fn heals_at_most_once_a_day_unless_the_clock_went_back() {
        assert!(is_heal_due(None, NOON));
        assert!(!is_heal_due(Some(NOON), NOON));
        assert!(!is_heal_due(Some(NOON), NOON + HEAL_INTERVAL_MS - 1));
        assert!(is_heal_due(Some(NOON), NOON + HEAL_INTERVAL_MS));
        assert!(is_heal_due(Some(NOON), NOON - 1));
    }
}
