//! What the sync status shows of the outbox ([`SyncView`]), counted from what the
//! database holds. Read in the `drawn` module, after every trigger and flush: only the
//! panels and the result screen show it (docs/performance.md, "What loads first").

use keydo_core::Mode;
use keydo_core::sync::classify::ErrorCode;
use keydo_storage::{HeldResult, SyncStatus, VerifiedResult};
use std::collections::HashSet;
use uuid::Uuid;

/// What the sync status shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncView {
    /// The outbox has been read: until then `pending` is not known, and nothing may
    /// claim that every score is on the boards.
    pub read: bool,
    /// Results waiting to reach the server, blocked ones included.
    pub pending: usize,
    /// Why the last attempt failed, as a stable code.
    pub last_error: Option<ErrorCode>,
    /// Results the API refused: only Retry sends them again; the player may discard them.
    pub blocked: Vec<BlockedResult>,
    /// Results the server accepted but holds for review before the public boards.
    pub held: Vec<HeldResult>,
    /// The codes the server gave delivered results (the 成绩 line's 验证), newest first.
    pub verified: Vec<VerifiedResult>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlockedResult {
    pub score_id: Uuid,
    pub mode: Mode,
    pub value: i64,
    /// Why the server refused it; absent only in entries written by an older version.
    pub code: Option<ErrorCode>,
}

impl SyncView {
    /// The view of `status`, as read.
    pub fn of(status: SyncStatus) -> SyncView {
        let outbox = status.outbox;
        let last_error = outbox
            .iter()
            .filter(|e| !e.sync.blocked)
            .find_map(|e| e.sync.last_error.clone());
        let blocked = outbox
            .iter()
            .filter(|e| e.sync.blocked)
            .map(|e| BlockedResult {
                score_id: e.score_id,
                mode: e.mode,
                value: e.value,
                code: e.sync.last_error.clone(),
            })
            .collect();
        // A game waits once however many of its boards it waits for.
        let pending = outbox
            .iter()
            .map(|e| e.score_id)
            .collect::<HashSet<_>>()
            .len();
        SyncView {
            read: true,
            pending,
            last_error,
            blocked,
            held: status.held,
            verified: status.verified,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::game::board::Board;
    use keydo_core::{OutboxEntry, Stats};

    fn entry(id: u128, mode: Mode) -> OutboxEntry {
        let stats = Stats {
            duration_ms: 30_000,
            correct_chars: 150,
            errors: 0,
            keystrokes: 150,
            correct_keystrokes: 150,
        };
        OutboxEntry::new(Uuid::from_u128(id), Uuid::from_u128(0xA), mode, stats, 0)
    }

    #[test]
    fn a_game_pends_once_for_all_its_boards_and_refused_ones_are_listed() {
        let on_mode = entry(1, Mode::Quote);
        let on_day = on_mode.for_board(Board::DailyFirst { day: 20_788 });
        let mut failed = entry(2, Mode::Words);
        failed.sync.last_error = Some(ErrorCode::TIMEOUT);
        let mut refused = entry(3, Mode::Time);
        refused.sync.blocked = true;
        refused.sync.last_error = ErrorCode::new("TEXT_REFUSED");
        let view = SyncView::of(SyncStatus {
            outbox: vec![refused.clone(), on_mode, on_day, failed],
            held: Vec::new(),
            verified: Vec::new(),
        });
        assert!(view.read);
        assert_eq!(view.pending, 3);
        // The last error is a sendable entry's: a refused one has its own line.
        assert_eq!(view.last_error, Some(ErrorCode::TIMEOUT));
        assert_eq!(
            view.blocked,
            [BlockedResult {
                score_id: refused.score_id,
                mode: Mode::Time,
                value: refused.value,
                code: ErrorCode::new("TEXT_REFUSED"),
            }]
        );
    }
}
