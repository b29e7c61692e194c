//! The outbox: results waiting to reach the leaderboards, and the rules that keep them
//! from being lost, sent twice or stuck (docs/sync.md, "Outbox").
//!
//! For each [`OutboxKey`] (profile, mode, board, and the week for a mode's boards) the
//! app stores at most one *sendable* [`OutboxEntry`], and beside it the entries the API
//! refused (blocked), so a refused result never hides a newer valid one: [`Slots`].
//! Adding a result [`merge`]s it with the sendable one, keeping the one the board's
//! [`Ranking`] prefers (the best, or for 首打 the first), so adding or replaying anything
//! is harmless.
//! An entry leaves only when the server has acknowledged *that* entry and it is still
//! stored ([`is_still_the_one_sent`]), or when the player discards a blocked one: a
//! better result added while the old one was in flight stays to be sent.

use crate::api::ScoreSubmission;
use crate::api::week::week_of;
use crate::game::board::{Attempt, Board, Ranking};
use crate::game::input_log::InputLog;
use crate::game::mode::Mode;
use crate::game::prompt_id::PromptId;
use crate::game::score::{self, Stats};
use crate::sync::backoff::{self, MAX_DELAY_MS, retry_delay_ms};
use crate::sync::classify::{Disposition, ErrorCode, Failure, Request, classify};
use crate::sync::coalesce::FlushKind;
use serde::{Deserialize, Serialize};
use std::fmt;
use uuid::Uuid;

/// The outbox holds at most one entry per key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutboxKey {
    pub profile_id: Uuid,
    pub mode: Mode,
    pub board: Board,
    /// The week, for a mode's boards (each week has its own best); `None` for boards
    /// that span all time (a text's) or name their day.
    pub week: Option<i64>,
}

impl fmt::Display for OutboxKey {
    /// Usable as the IndexedDB key: `<profile>/<mode>/<week>` for a mode's boards (as
    /// before boards existed, so stored entries keep their keys),
    /// `<profile>/<mode>/text/<hash>/best` or `…/first` for a text's,
    /// `<profile>/<mode>/daily/<day>` for the day's race, and
    /// `<profile>/<mode>/options/<options>/best` for a test with options
    /// (`…/options/30+punctuation/best`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (profile, mode) = (self.profile_id, self.mode);
        match (self.board, self.week) {
            (Board::Mode, Some(week)) => write!(f, "{profile}/{mode}/{week}"),
            (Board::Mode, None) => write!(f, "{profile}/{mode}/alltime"),
            (Board::TextBest { text }, _) => write!(f, "{profile}/{mode}/text/{text}/best"),
            (Board::TextFirst { text }, _) => write!(f, "{profile}/{mode}/text/{text}/first"),
            (Board::DailyFirst { day }, _) => write!(f, "{profile}/{mode}/daily/{day}"),
            (Board::OptionsBest { options }, _) => {
                write!(f, "{profile}/{mode}/options/{}/best", options.key())
            }
        }
    }
}

/// One result waiting to be sent, as the app stores it.
///
/// Unknown fields are tolerated (unlike on the wire): a page and a service worker of
/// different versions share the store during an update, and neither may lose the
/// other's entries for not knowing a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OutboxEntry {
    /// Made by the app when the game ends; identifies this result everywhere.
    pub score_id: Uuid,
    pub profile_id: Uuid,
    pub mode: Mode,
    /// The UTC+8 week the game was played in.
    pub week: i64,
    pub value: i64,
    pub stats: Stats,
    /// When the game ended, unix ms.
    pub played_at: u64,
    /// Which board of the game this entry waits to reach; entries stored before boards
    /// existed are on their mode's.
    #[serde(default, skip_serializing_if = "is_mode_board")]
    pub board: Board,
    pub sync: SyncState,
    /// What the server replays to verify the result (docs/replay.md); absent in
    /// entries stored before verification existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<PromptId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<InputLog>,
}

impl OutboxEntry {
    /// A fresh result, its value and week derived so they cannot disagree with the stats
    /// and the time.
    pub fn new(
        score_id: Uuid,
        profile_id: Uuid,
        mode: Mode,
        stats: Stats,
        played_at: u64,
    ) -> OutboxEntry {
        OutboxEntry {
            score_id,
            profile_id,
            mode,
            // Exact: clocks read below 2^53 ms (JavaScript's `Date.now()` can't go higher).
            week: week_of(played_at as i64),
            value: score::value(mode, &stats),
            stats,
            played_at,
            board: Board::Mode,
            sync: SyncState::default(),
            prompt: None,
            input: None,
        }
    }

    /// The entry with the game's prompt identity and input log, for the server's replay.
    pub fn with_replay(self, prompt: PromptId, input: InputLog) -> OutboxEntry {
        OutboxEntry {
            prompt: Some(prompt),
            input: Some(input),
            ..self
        }
    }

    /// The same game, waiting for `board` instead: a game that counts on several boards
    /// is added once per board, and each keeps it by its own ranking.
    pub fn for_board(&self, board: Board) -> OutboxEntry {
        OutboxEntry {
            board,
            ..self.clone()
        }
    }

    pub fn key(&self) -> OutboxKey {
        OutboxKey {
            profile_id: self.profile_id,
            mode: self.mode,
            board: self.board,
            week: (self.board == Board::Mode).then_some(self.week),
        }
    }

    /// Where the entry is stored: the key's one sendable slot (`<key>`), or, when
    /// blocked, its own place beside it (`<key>/blocked/<scoreId>`).
    pub fn store_key(&self) -> String {
        if self.sync.blocked {
            format!("{}{}", blocked_prefix(self.key()), self.score_id)
        } else {
            self.key().to_string()
        }
    }

    /// Whether the entry's board keeps it over `other` ([`Ranking::prefers`]): on a
    /// best board the higher value, on a tie the result played earlier; on a 首打 board
    /// the result played earlier. Playing time rather than arrival decides, so the
    /// survivor is the same whatever order the page, the service worker and other tabs
    /// add results in.
    pub fn beats(&self, other: &OutboxEntry) -> bool {
        self.ranking().prefers(self.attempt(), other.attempt())
    }

    pub fn ranking(&self) -> Ranking {
        self.board.ranking()
    }

    fn attempt(&self) -> Attempt {
        Attempt {
            value: self.value,
            played_at: self.played_at,
            score_id: self.score_id,
        }
    }
}

fn is_mode_board(board: &Board) -> bool {
    *board == Board::Mode
}

impl From<&OutboxEntry> for ScoreSubmission {
    /// The body that sends the entry: everything but the profile and the sync state.
    fn from(entry: &OutboxEntry) -> ScoreSubmission {
        ScoreSubmission {
            score_id: entry.score_id,
            mode: entry.mode,
            week: entry.week,
            value: entry.value,
            played_at: entry.played_at,
            stats: entry.stats,
            prompt: entry.prompt.clone(),
            input: entry.input.clone(),
        }
    }
}

/// What to store when a result is added.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merge {
    /// Nothing is stored for the key: store the incoming entry.
    Insert,
    /// The incoming entry is better: store it in place of the existing one.
    Replace,
    /// The existing entry is at least as good (or is the same one): store nothing.
    KeepExisting,
}

/// Adding `incoming` to a key that holds `existing`. Both must share a key.
pub fn merge(existing: Option<&OutboxEntry>, incoming: &OutboxEntry) -> Merge {
    match existing {
        None => Merge::Insert,
        Some(existing) => {
            debug_assert_eq!(existing.key(), incoming.key(), "merging across keys");
            if incoming.beats(existing) {
                Merge::Replace
            } else {
                Merge::KeepExisting
            }
        }
    }
}

/// Whether the entry stored for the sent entry's key is still the sent one.
///
/// After a 2xx, delete the stored entry only if this holds; after a failure, record it
/// only if this holds. Otherwise a better result replaced the sent one meanwhile, and
/// it must stay, untouched, to be sent on its own.
pub fn is_still_the_one_sent(stored: Option<&OutboxEntry>, sent_score_id: Uuid) -> bool {
    stored.is_some_and(|entry| entry.score_id == sent_score_id)
}

/// When the backoff timer should wake the sync next, seen at `now_ms`: the earliest
/// wait among entries that are not blocked (blocked ones wait for a manual retry), and
/// never later than the cap from now (a wait further out means the clock went back).
/// `None` when none waits.
pub fn next_retry_at<'a>(
    entries: impl IntoIterator<Item = &'a OutboxEntry>,
    now_ms: u64,
) -> Option<u64> {
    entries
        .into_iter()
        .filter(|entry| !entry.sync.blocked)
        .map(|entry| {
            entry
                .sync
                .next_attempt_at
                .min(now_ms.saturating_add(MAX_DELAY_MS))
        })
        .min()
}

/// The start of the store keys of `key`'s blocked entries.
pub fn blocked_prefix(key: OutboxKey) -> String {
    format!("{key}/blocked/")
}

/// What the outbox holds for one key: at most one entry to send, and beside it the
/// entries the API refused, kept (with their reason) until a manual retry delivers
/// them or the player discards them. Storage loads these, applies one change, and
/// writes them back in one transaction.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Slots {
    pub sendable: Option<OutboxEntry>,
    pub blocked: Vec<OutboxEntry>,
}

impl Slots {
    /// The slots as stored: each entry where its `blocked` flag puts it.
    pub fn from_stored(stored: impl IntoIterator<Item = OutboxEntry>) -> Slots {
        let mut slots = Slots::default();
        for entry in stored {
            if entry.sync.blocked {
                slots.blocked.push(entry);
            } else if slots.sendable.as_ref().is_none_or(|kept| entry.beats(kept)) {
                slots.sendable = Some(entry);
            }
        }
        slots
    }

    /// Every entry held, the sendable one first.
    pub fn entries(&self) -> impl Iterator<Item = &OutboxEntry> {
        self.sendable.iter().chain(&self.blocked)
    }

    /// Adds a result as sendable, keeping the better of it and the sendable one.
    /// A replay of a blocked entry stays blocked. Returns whether anything changed.
    pub fn add(&mut self, mut incoming: OutboxEntry) -> bool {
        if self.position_blocked(incoming.score_id).is_some() {
            return false;
        }
        incoming.sync.blocked = false;
        match merge(self.sendable.as_ref(), &incoming) {
            Merge::Insert | Merge::Replace => {
                self.sendable = Some(incoming);
                true
            }
            Merge::KeepExisting => false,
        }
    }

    /// The server acknowledged `sent_score_id`: it leaves, wherever it is. Returns
    /// whether it was still held.
    pub fn acknowledge(&mut self, sent_score_id: Uuid) -> bool {
        if is_still_the_one_sent(self.sendable.as_ref(), sent_score_id) {
            self.sendable = None;
            return true;
        }
        self.discard_blocked(sent_score_id).is_some()
    }

    /// A send of `sent_score_id` failed and left it in state `sync`: stores the state
    /// if the entry is still held, moving it aside when it became blocked and back
    /// (merged with any newer result) when a manual retry failed for a passing reason.
    /// Returns whether the entry was still held.
    pub fn record(&mut self, sent_score_id: Uuid, sync: SyncState) -> bool {
        if is_still_the_one_sent(self.sendable.as_ref(), sent_score_id) {
            let mut entry = self.sendable.take().expect("checked above");
            let blocked = sync.blocked;
            entry.sync = sync;
            if blocked {
                self.blocked.push(entry);
            } else {
                self.sendable = Some(entry);
            }
            return true;
        }
        let Some(at) = self.position_blocked(sent_score_id) else {
            return false;
        };
        if sync.blocked {
            self.blocked[at].sync = sync;
        } else {
            let mut entry = self.blocked.remove(at);
            entry.sync = sync;
            if merge(self.sendable.as_ref(), &entry) != Merge::KeepExisting {
                self.sendable = Some(entry);
            }
        }
        true
    }

    /// The player gives up on a blocked entry: it leaves, and is returned (with its
    /// reason in `sync.last_error`). `None` if no blocked entry has that id.
    pub fn discard_blocked(&mut self, score_id: Uuid) -> Option<OutboxEntry> {
        let at = self.position_blocked(score_id)?;
        Some(self.blocked.remove(at))
    }

    fn position_blocked(&self, score_id: Uuid) -> Option<usize> {
        self.blocked.iter().position(|e| e.score_id == score_id)
    }
}

/// An entry's sending history. Persisted with it, so it holds only counts, times and a
/// stable error code: never a token or a save's body.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncState {
    /// Failed attempts in the current run of failures (the backoff's n): a run ends
    /// when the server answers after failures for want of a network.
    pub attempts: u32,
    /// Unix ms before which no automatic flush sends the entry; 0 for a fresh entry.
    pub next_attempt_at: u64,
    /// Why the last attempt failed.
    pub last_error: Option<ErrorCode>,
    /// Only a manual retry sends a blocked entry.
    pub blocked: bool,
}

impl SyncState {
    /// Whether a flush of `kind` at `now_ms` sends the entry.
    ///
    /// A wait further ahead than the backoff cap is over (the clock went back since it
    /// was set). A reconnect also sends, at once, what failed only for want of a
    /// network; a wait the server asked for (429, 5xx) still holds.
    pub fn is_due(&self, now_ms: u64, kind: FlushKind) -> bool {
        let waited = backoff::is_over(self.next_attempt_at, now_ms);
        match kind {
            FlushKind::Manual => true,
            FlushKind::Automatic => !self.blocked && waited,
            FlushKind::Reconnect => {
                let unreachable = self
                    .last_error
                    .as_ref()
                    .is_some_and(ErrorCode::is_unreachable);
                !self.blocked && (waited || unreachable)
            }
        }
    }

    /// Records that sending the entry failed at `now_ms`, and returns what the sync
    /// does next. `jitter` is a random number in `[0, 1)` for the backoff.
    ///
    /// On [`Disposition::RenewSave`] the entry is left due at once: the caller forgets
    /// the save and flushes again, and if it stops first, the next flush creates the
    /// new save. A failure to create the save is recorded on every entry that flush
    /// meant to send, since none of them could be.
    pub fn record_failure(
        &mut self,
        request: Request,
        failure: &Failure,
        now_ms: u64,
        jitter: f64,
    ) -> Disposition {
        let disposition = classify(request, failure);
        // The first answer after a spell without a network starts a new run of failures:
        // the spell said nothing about the server, so its length must not stretch the
        // wait the server's answer earns (a 429 asking for 60 s waits 60 s, not 5 min).
        let after_spell = self
            .last_error
            .as_ref()
            .is_some_and(ErrorCode::is_unreachable);
        if after_spell && !failure.is_unreachable() {
            self.attempts = 0;
        }
        self.attempts = self.attempts.saturating_add(1);
        self.last_error = Some(failure.code());
        self.blocked = disposition == Disposition::Blocked;
        match disposition {
            Disposition::Retryable => {
                let delay = retry_delay_ms(self.attempts, jitter, failure.retry_after_ms());
                self.next_attempt_at = now_ms.saturating_add(delay);
            }
            Disposition::RenewSave => self.next_attempt_at = now_ms,
            // Blocked entries wait for a manual retry, which ignores the time.
            Disposition::Blocked => {}
        }
        disposition
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::sync::backoff::MAX_DELAY_MS;
    use crate::text::hash::TextHash;
    use proptest::prelude::*;

    const PROFILE: Uuid = Uuid::from_u128(0xA);
    /// Tuesday 2026-12-01 12:00 UTC+8.
    const NOON: u64 = 1_796_097_600_000;
    const SCORE: Request = Request::Authenticated {
        save_renewed: false,
    };

    /// A flawless 30-second game of `profile` 0xA, so its value follows `correct_chars`.
    pub(crate) fn game(id: u128, mode: Mode, correct_chars: u32, played_at: u64) -> OutboxEntry {
        let stats = Stats {
            duration_ms: 30_000,
            correct_chars,
            errors: 0,
            keystrokes: correct_chars,
            correct_keystrokes: correct_chars,
        };
        OutboxEntry::new(Uuid::from_u128(id), PROFILE, mode, stats, played_at)
    }

    fn entry(id: u128, correct_chars: u32, played_at: u64) -> OutboxEntry {
        game(id, Mode::Words, correct_chars, played_at)
    }

    #[test]
    fn each_board_of_a_game_has_its_own_key_and_mode_keys_stay_as_stored() {
        let game = entry(1, 250, NOON);
        let text = TextHash::of("abc");
        let keys: Vec<String> = [
            Board::Mode,
            Board::TextBest { text },
            Board::TextFirst { text },
            Board::DailyFirst { day: 20_788 },
        ]
        .into_iter()
        .map(|board| game.for_board(board).key().to_string())
        .collect();
        let profile = "00000000-0000-0000-0000-00000000000a";
        assert_eq!(
            keys,
            [
                format!("{profile}/words/{}", game.week),
                format!("{profile}/words/text/{text}/best"),
                format!("{profile}/words/text/{text}/first"),
                format!("{profile}/words/daily/20788"),
            ]
        );
        // A text's boards span weeks: a game of next week lands in the same slot.
        let next_week =
            entry(2, 100, NOON + 7 * 24 * 3_600_000).for_board(Board::TextFirst { text });
        assert_eq!(
            next_week.key(),
            game.for_board(Board::TextFirst { text }).key()
        );
        // The first attempt stays over a later, faster one; the best board takes it.
        let mut first = Slots::default();
        first.add(game.for_board(Board::TextFirst { text }));
        assert!(!first.add(next_week.clone()));
        let mut best = Slots::default();
        best.add(entry(3, 100, NOON).for_board(Board::TextBest { text }));
        assert!(best.add(entry(4, 300, NOON + 1).for_board(Board::TextBest { text })));
        // The board travels with a stored entry, and a mode entry stores none.
        let stored = serde_json::to_value(game.for_board(Board::TextFirst { text })).unwrap();
        assert_eq!(stored["board"]["kind"], "textFirst");
        assert!(serde_json::to_value(&game).unwrap().get("board").is_none());
    }

    #[test]
    fn a_new_entry_derives_its_value_and_week() {
        let e = entry(1, 250, NOON);
        // 250 chars in 30 s = 100 WPM.
        assert_eq!(e.value, 10_000);
        assert_eq!(e.week, week_of(NOON as i64));
        assert_eq!(e.sync, SyncState::default());
        assert!(
            e.sync.is_due(0, FlushKind::Automatic),
            "a fresh entry is due at once"
        );
        assert_eq!(
            e.key().to_string(),
            format!("00000000-0000-0000-0000-00000000000a/words/{}", e.week)
        );
    }

    #[test]
    fn merge_keeps_the_better_result() {
        let stored = entry(1, 250, NOON);
        assert_eq!(merge(None, &stored), Merge::Insert);
        assert_eq!(
            merge(Some(&stored), &entry(2, 251, NOON + 1)),
            Merge::Replace
        );
        assert_eq!(
            merge(Some(&stored), &entry(2, 249, NOON + 1)),
            Merge::KeepExisting
        );
        // On a tie the earlier result stays...
        assert_eq!(
            merge(Some(&stored), &entry(2, 250, NOON + 1)),
            Merge::KeepExisting
        );
        // ...even if it arrives second.
        assert_eq!(
            merge(Some(&stored), &entry(2, 250, NOON - 1)),
            Merge::Replace
        );
        // Re-adding the stored entry (a replay) changes nothing.
        assert_eq!(merge(Some(&stored), &stored.clone()), Merge::KeepExisting);
    }

    #[test]
    fn an_ack_deletes_only_the_entry_that_was_sent() {
        let sent = entry(1, 250, NOON);
        assert!(is_still_the_one_sent(Some(&sent), sent.score_id));
        // A better result replaced it during the send: it stays.
        let better = entry(2, 300, NOON + 5);
        assert!(!is_still_the_one_sent(Some(&better), sent.score_id));
        // Already gone (another tab's flush removed it): nothing to delete.
        assert!(!is_still_the_one_sent(None, sent.score_id));
    }

    #[test]
    fn a_retryable_failure_backs_off() {
        let mut sync = SyncState::default();
        let d = sync.record_failure(SCORE, &Failure::Network, NOON, 0.0);
        assert_eq!(d, Disposition::Retryable);
        assert_eq!(sync.attempts, 1);
        assert_eq!(sync.next_attempt_at, NOON + 1_000);
        assert_eq!(sync.last_error, Some(ErrorCode::NETWORK_ERROR));
        assert!(!sync.blocked);
        assert!(!sync.is_due(NOON + 999, FlushKind::Automatic));
        assert!(sync.is_due(NOON + 1_000, FlushKind::Automatic));
        assert!(
            sync.is_due(NOON, FlushKind::Manual),
            "a manual retry ignores the wait"
        );

        // Second failure in a row: the window doubles.
        sync.record_failure(SCORE, &Failure::Network, NOON + 1_000, 0.0);
        assert_eq!(sync.attempts, 2);
        assert_eq!(sync.next_attempt_at, NOON + 3_000);
        // Then the server answers, a 429 asking for a minute: a new run, the minute wins.
        let too_many = Failure::http(429, Some("RATE_LIMITED"), Some("60"));
        sync.record_failure(SCORE, &too_many, NOON + 3_000, 0.0);
        assert_eq!(sync.attempts, 1);
        assert_eq!(sync.next_attempt_at, NOON + 63_000);
        assert_eq!(
            sync.last_error.as_ref().map(ErrorCode::as_str),
            Some("RATE_LIMITED")
        );
        // A 503 next: the server's failures in a row back off.
        sync.record_failure(SCORE, &Failure::http(503, None, None), NOON + 63_000, 0.0);
        assert_eq!(sync.attempts, 2);
        assert_eq!(sync.next_attempt_at, NOON + 65_000);
    }

    #[test]
    fn a_blocked_entry_waits_for_a_manual_retry() {
        let mut sync = SyncState::default();
        let refused = Failure::http(422, Some("TOO_FAST"), None);
        assert_eq!(
            sync.record_failure(SCORE, &refused, NOON, 0.5),
            Disposition::Blocked
        );
        assert!(sync.blocked);
        assert!(
            !sync.is_due(u64::MAX, FlushKind::Automatic),
            "never replayed on a timer"
        );
        assert!(sync.is_due(NOON, FlushKind::Manual));
        // The manual retry fails for a passing reason: back to automatic retries.
        sync.record_failure(SCORE, &Failure::http(503, None, None), NOON, 0.0);
        assert!(!sync.blocked);
        assert_eq!(sync.attempts, 2);
        assert_eq!(sync.next_attempt_at, NOON + 2_000);
    }

    #[test]
    fn an_unknown_save_is_renewed_not_blocked() {
        let mut sync = SyncState::default();
        let unknown = Failure::http(401, Some("UNAUTHORIZED"), None);
        assert_eq!(
            sync.record_failure(SCORE, &unknown, NOON, 0.5),
            Disposition::RenewSave
        );
        assert!(!sync.blocked);
        assert!(
            sync.is_due(NOON, FlushKind::Automatic),
            "resent at once with the new save"
        );
        let renewed = Request::Authenticated { save_renewed: true };
        assert_eq!(
            sync.record_failure(renewed, &unknown, NOON, 0.0),
            Disposition::Retryable
        );
        assert_eq!(sync.next_attempt_at, NOON + 2_000);
    }

    #[test]
    fn next_retry_at_skips_blocked_entries() {
        let mut waiting = entry(1, 250, NOON);
        waiting
            .sync
            .record_failure(SCORE, &Failure::Network, NOON, 0.0);
        let mut blocked = entry(2, 250, NOON);
        blocked.sync.record_failure(SCORE, &refused(), NOON, 0.0);
        assert_eq!(
            next_retry_at([&waiting, &blocked], NOON),
            Some(NOON + 1_000)
        );
        assert_eq!(next_retry_at([&blocked], NOON), None);
        assert_eq!(next_retry_at([], NOON), None);
        // Seen after the clock went back an hour: no later than the cap from then.
        let earlier = NOON - 3_600_000;
        assert_eq!(
            next_retry_at([&waiting], earlier),
            Some(earlier + MAX_DELAY_MS)
        );
    }

    fn refused() -> Failure {
        Failure::http(422, Some("VALUE_MISMATCH"), None)
    }

    #[test]
    fn a_long_spell_offline_does_not_stretch_the_wait_the_server_asks_for() {
        let mut sync = SyncState::default();
        for _ in 0..12 {
            sync.record_failure(SCORE, &Failure::Network, NOON, 0.9);
        }
        let too_many = Failure::http(429, Some("RATE_LIMITED"), Some("60"));
        sync.record_failure(SCORE, &too_many, NOON, 0.9);
        assert_eq!(
            sync.attempts, 1,
            "the server's first answer starts a new run"
        );
        assert_eq!(
            sync.next_attempt_at,
            NOON + 60_000,
            "the wait the server asked for"
        );
        // Failures of the server in a row still back off.
        sync.record_failure(SCORE, &Failure::http(503, None, None), NOON, 0.9);
        assert_eq!(sync.attempts, 2);
        // Losing the network again keeps counting: a spell is one run.
        sync.record_failure(SCORE, &Failure::Network, NOON, 0.9);
        assert_eq!(sync.attempts, 3);
    }

    #[test]
    fn a_reconnect_sends_at_once_what_failed_for_want_of_a_network() {
        for unreachable in [Failure::Network, Failure::Timeout] {
            let mut sync = SyncState::default();
            for _ in 0..12 {
                sync.record_failure(SCORE, &unreachable, NOON, 0.9);
            }
            assert!(
                sync.next_attempt_at > NOON + 200_000,
                "backed off to the cap"
            );
            assert!(!sync.is_due(NOON + 1, FlushKind::Automatic));
            assert!(
                sync.is_due(NOON + 1, FlushKind::Reconnect),
                "{unreachable:?}"
            );
        }
        // Waits the server asked for still hold...
        for asked in [
            Failure::http(429, Some("RATE_LIMITED"), Some("60")),
            Failure::http(503, Some("UNAVAILABLE"), None),
            Failure::http(502, None, None),
            Failure::InvalidResponse,
        ] {
            let mut sync = SyncState::default();
            sync.record_failure(SCORE, &asked, NOON, 0.0);
            assert!(!sync.is_due(NOON + 1, FlushKind::Reconnect), "{asked:?}");
            assert!(sync.is_due(sync.next_attempt_at, FlushKind::Reconnect));
        }
        // ...and blocked entries wait for the player.
        let mut blocked = SyncState::default();
        blocked.record_failure(SCORE, &refused(), NOON, 0.0);
        assert!(!blocked.is_due(NOON + 1, FlushKind::Reconnect));
        // A fresh entry is due for every kind.
        for kind in [
            FlushKind::Automatic,
            FlushKind::Reconnect,
            FlushKind::Manual,
        ] {
            assert!(SyncState::default().is_due(0, kind));
        }
    }

    #[test]
    fn a_wait_beyond_the_cap_is_over_when_the_clock_went_back() {
        let mut sync = SyncState::default();
        sync.record_failure(SCORE, &Failure::http(503, None, Some("300")), NOON, 0.0);
        assert_eq!(sync.next_attempt_at, NOON + MAX_DELAY_MS);
        assert!(!sync.is_due(NOON, FlushKind::Automatic));
        // The clock is set back a minute: the wait now reaches past the cap.
        assert!(sync.is_due(NOON - 60_000, FlushKind::Automatic));
        assert!(sync.is_due(NOON - 60_000, FlushKind::Reconnect));
    }

    fn blocked_entry(id: u128, chars: u32) -> OutboxEntry {
        let mut e = entry(id, chars, NOON);
        e.sync.record_failure(SCORE, &refused(), NOON, 0.0);
        e
    }

    #[test]
    fn a_blocked_entry_never_shadows_a_newer_result() {
        let best = entry(1, 300, NOON);
        let mut slots = Slots::default();
        assert!(slots.add(best.clone()));
        // The API refuses it: it moves aside, keeping its reason.
        let mut sync = best.sync.clone();
        sync.record_failure(SCORE, &refused(), NOON, 0.0);
        assert!(slots.record(best.score_id, sync));
        assert_eq!(slots.sendable, None);
        assert_eq!(slots.blocked.len(), 1);
        assert_eq!(
            slots.blocked[0]
                .sync
                .last_error
                .as_ref()
                .map(ErrorCode::as_str),
            Some("VALUE_MISMATCH")
        );
        assert_eq!(
            slots.blocked[0].store_key(),
            format!("{}/blocked/{}", best.key(), best.score_id)
        );
        // A lower, valid game of the same key is kept beside it and is sendable.
        let lower = entry(2, 200, NOON + 60_000);
        assert!(slots.add(lower.clone()));
        assert_eq!(slots.sendable.as_ref(), Some(&lower));
        assert_eq!(
            slots.sendable.as_ref().unwrap().store_key(),
            lower.key().to_string()
        );
        // Replaying the blocked result does not make it sendable again.
        assert!(!slots.add(best.clone()));
        assert_eq!(slots.sendable.as_ref(), Some(&lower));
        // The lower one is delivered; the blocked one stays until discarded.
        assert!(slots.acknowledge(lower.score_id));
        assert_eq!(slots.entries().count(), 1);
        let discarded = slots.discard_blocked(best.score_id).unwrap();
        assert_eq!(
            discarded.sync.last_error.unwrap().as_str(),
            "VALUE_MISMATCH"
        );
        assert_eq!(slots, Slots::default());
        assert_eq!(slots.discard_blocked(best.score_id), None);
    }

    #[test]
    fn a_manual_retry_of_a_blocked_entry_settles_it() {
        // Delivered on the manual retry: it leaves.
        let mut slots = Slots::from_stored([blocked_entry(1, 300)]);
        assert!(slots.acknowledge(Uuid::from_u128(1)));
        assert_eq!(slots, Slots::default());

        // Refused again: it stays blocked with the new state.
        let mut slots = Slots::from_stored([blocked_entry(1, 300)]);
        let mut again = slots.blocked[0].sync.clone();
        again.record_failure(
            SCORE,
            &Failure::http(422, Some("TOO_FAST"), None),
            NOON,
            0.0,
        );
        assert!(slots.record(Uuid::from_u128(1), again.clone()));
        assert_eq!(slots.blocked[0].sync, again);

        // A passing failure: back to the sendable slot, merged with the newer result
        // there (the better stays).
        let newer = entry(2, 250, NOON + 1);
        let mut slots = Slots::from_stored([blocked_entry(1, 300), newer.clone()]);
        let mut passing = slots.blocked[0].sync.clone();
        passing.record_failure(SCORE, &Failure::Network, NOON, 0.0);
        assert!(slots.record(Uuid::from_u128(1), passing));
        assert!(slots.blocked.is_empty());
        assert_eq!(
            slots.sendable.as_ref().unwrap().score_id,
            Uuid::from_u128(1)
        );
        assert!(!slots.sendable.as_ref().unwrap().sync.blocked);

        let mut slots = Slots::from_stored([blocked_entry(1, 200), newer.clone()]);
        let mut passing = slots.blocked[0].sync.clone();
        passing.record_failure(SCORE, &Failure::Network, NOON, 0.0);
        assert!(slots.record(Uuid::from_u128(1), passing));
        assert_eq!(
            slots.sendable.as_ref(),
            Some(&newer),
            "the better newer one stays"
        );
        assert!(slots.blocked.is_empty());

        // Nothing held under that id: nothing changes.
        let mut slots = Slots::from_stored([newer.clone()]);
        assert!(!slots.record(Uuid::from_u128(9), SyncState::default()));
        assert!(!slots.acknowledge(Uuid::from_u128(9)));
        assert_eq!(slots.sendable, Some(newer));
    }

    #[test]
    fn the_stored_record_is_camel_case_without_secrets() {
        let mut e = entry(1, 250, NOON);
        e.sync
            .record_failure(SCORE, &Failure::http(500, None, None), NOON, 0.0);
        let json: serde_json::Value = serde_json::to_value(&e).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "scoreId": "00000000-0000-0000-0000-000000000001",
                "profileId": "00000000-0000-0000-0000-00000000000a",
                "mode": "words",
                "week": e.week,
                "value": 10_000,
                "stats": {"durationMs": 30_000, "correctChars": 250, "errors": 0,
                          "keystrokes": 250, "correctKeystrokes": 250},
                "playedAt": NOON,
                "sync": {"attempts": 1, "nextAttemptAt": NOON + 1_000,
                         "lastError": "HTTP_500", "blocked": false},
            })
        );
        assert_eq!(serde_json::from_value::<OutboxEntry>(json).unwrap(), e);
    }

    #[test]
    fn an_entry_is_sent_as_the_documented_body() {
        let mut e = entry(1, 250, NOON);
        e.sync.record_failure(SCORE, &Failure::Network, NOON, 0.0);
        let body = serde_json::to_value(ScoreSubmission::from(&e)).unwrap();
        let mut stored = serde_json::to_value(&e).unwrap();
        let stored = stored.as_object_mut().unwrap();
        stored.remove("profileId");
        stored.remove("sync");
        assert_eq!(body, serde_json::Value::Object(stored.clone()));
    }

    #[test]
    fn the_replay_travels_with_the_entry() {
        let prompt = PromptId::for_game(Mode::Words, crate::Seed::new(7).unwrap(), None);
        let input = InputLog::from_bytes(vec![1, 0, b'a']);
        let e = entry(1, 250, NOON).with_replay(prompt.clone(), input.clone());
        let stored = serde_json::to_value(&e).unwrap();
        assert_eq!(
            stored["prompt"],
            serde_json::json!({"corpus": "words", "seed": 7})
        );
        assert_eq!(stored["input"], "AQBh");
        assert_eq!(serde_json::from_value::<OutboxEntry>(stored).unwrap(), e);
        let body = ScoreSubmission::from(&e);
        assert_eq!((body.prompt, body.input), (Some(prompt), Some(input)));
    }

    #[test]
    fn a_record_from_a_newer_version_still_reads() {
        let mut json = serde_json::to_value(entry(1, 250, NOON)).unwrap();
        json["addedLater"] = serde_json::json!(true);
        assert!(serde_json::from_value::<OutboxEntry>(json).is_ok());
    }

    fn entries() -> impl Strategy<Value = Vec<OutboxEntry>> {
        proptest::collection::vec((0..50u32, 0..5u64), 1..8).prop_map(|results| {
            results
                .into_iter()
                .enumerate()
                .map(|(i, (chars, minute))| entry(i as u128, chars, NOON + minute * 60_000))
                .collect()
        })
    }

    /// Stores `added` one by one through `merge`, as the app does.
    fn store_all(added: &[OutboxEntry]) -> Option<OutboxEntry> {
        added.iter().fold(None, |stored, incoming| {
            match merge(stored.as_ref(), incoming) {
                Merge::Insert | Merge::Replace => Some(incoming.clone()),
                Merge::KeepExisting => stored,
            }
        })
    }

    /// One thing that happens to a key's slots.
    #[derive(Debug, Clone)]
    enum Event {
        Add(u32),
        Refuse(usize),
        FailPassing(usize),
        Ack(usize),
        Discard(usize),
    }

    fn events() -> impl Strategy<Value = Vec<Event>> {
        proptest::collection::vec(
            prop_oneof![
                (0..50u32).prop_map(Event::Add),
                any::<usize>().prop_map(Event::Refuse),
                any::<usize>().prop_map(Event::FailPassing),
                any::<usize>().prop_map(Event::Ack),
                any::<usize>().prop_map(Event::Discard),
            ],
            1..30,
        )
    }

    proptest! {
        #[test]
        fn slots_hold_one_sendable_entry_and_never_lose_a_better_valid_one(events in events()) {
            let mut slots = Slots::default();
            let mut added = 0u128;
            for event in events {
                let held: Vec<Uuid> = slots.entries().map(|e| e.score_id).collect();
                let pick = |i: usize| (!held.is_empty()).then(|| held[i % held.len()]);
                match event {
                    Event::Add(chars) => {
                        added += 1;
                        let incoming = entry(added, chars, NOON + added as u64);
                        let sendable_before = slots.sendable.clone();
                        slots.add(incoming.clone());
                        // The sendable slot holds the better of the two.
                        let kept = slots.sendable.clone().unwrap();
                        prop_assert!(!incoming.beats(&kept));
                        prop_assert!(sendable_before.is_none_or(|before| !before.beats(&kept)));
                    }
                    Event::Refuse(i) | Event::FailPassing(i) => {
                        let Some(id) = pick(i) else { continue };
                        let mut sync = slots.entries().find(|e| e.score_id == id).unwrap().sync.clone();
                        let failure = if matches!(event, Event::Refuse(_)) { refused() } else { Failure::Network };
                        sync.record_failure(SCORE, &failure, NOON, 0.0);
                        prop_assert!(slots.record(id, sync));
                    }
                    Event::Ack(i) => {
                        let Some(id) = pick(i) else { continue };
                        prop_assert!(slots.acknowledge(id));
                        prop_assert!(slots.entries().all(|e| e.score_id != id));
                    }
                    Event::Discard(i) => {
                        let Some(id) = pick(i) else { continue };
                        let was_blocked = slots.blocked.iter().any(|e| e.score_id == id);
                        prop_assert_eq!(slots.discard_blocked(id).is_some(), was_blocked);
                    }
                }
                // Each entry sits where its flag says, and store keys are unique.
                prop_assert!(slots.sendable.as_ref().is_none_or(|e| !e.sync.blocked));
                prop_assert!(slots.blocked.iter().all(|e| e.sync.blocked));
                let mut keys: Vec<String> = slots.entries().map(OutboxEntry::store_key).collect();
                let count = keys.len();
                keys.sort();
                keys.dedup();
                prop_assert_eq!(keys.len(), count);
                // Reading back what is stored gives the same slots.
                prop_assert_eq!(Slots::from_stored(slots.entries().cloned()), slots.clone());
            }
        }

        #[test]
        fn the_best_survives_in_any_order(
            (added, shuffled) in entries().prop_flat_map(|v| (Just(v.clone()), Just(v).prop_shuffle()))
        ) {
            let kept = store_all(&added).unwrap();
            let best_value = added.iter().map(|e| e.value).max().unwrap();
            prop_assert_eq!(kept.value, best_value);
            let earliest_best = added.iter().filter(|e| e.value == best_value).map(|e| e.played_at).min();
            prop_assert_eq!(Some(kept.played_at), earliest_best);

            // Another arrival order keeps an equally good result, played as early.
            let other = store_all(&shuffled).unwrap();
            prop_assert_eq!((other.value, other.played_at), (kept.value, kept.played_at));

            // Replaying everything again changes nothing.
            let replayed = store_all(&[added.as_slice(), added.as_slice()].concat()).unwrap();
            prop_assert_eq!(replayed, kept);
        }

        /// Attempts at one text, added in any order by tabs and the worker, resent, and
        /// flushed at any moment (the server keeps by the same ranking): the server ends
        /// with the game the board prefers of all attempts, for 首打 the first played
        /// whatever its value, never a later one.
        #[test]
        fn first_only_and_best_only_boards_end_with_the_same_game_in_any_interleaving(
            (attempts, events) in proptest::collection::vec((0..50u32, 0..5u64), 1..8)
                .prop_flat_map(|attempts| {
                    let n = attempts.len();
                    (Just(attempts), proptest::collection::vec((0..3u8, 0..n), 1..24))
                })
        ) {
            let text = TextHash::of("同一段文字");
            for board in [Board::TextFirst { text }, Board::TextBest { text }] {
                let games: Vec<OutboxEntry> = attempts
                    .iter()
                    .enumerate()
                    .map(|(i, &(chars, minute))| {
                        entry(i as u128, chars, NOON + minute * 60_000).for_board(board)
                    })
                    .collect();
                let mut slots = Slots::default();
                let mut server: Option<OutboxEntry> = None;
                let deliver = |slots: &mut Slots, server: &mut Option<OutboxEntry>| {
                    if let Some(sent) = slots.sendable.clone() {
                        if server.as_ref().is_none_or(|kept| sent.beats(kept)) {
                            *server = Some(sent.clone());
                        }
                        prop_assert!(slots.acknowledge(sent.score_id));
                    }
                    Ok(())
                };
                for &(action, i) in &events {
                    match action {
                        // An attempt is added, or added again (a resend, another tab).
                        0 | 1 => {
                            slots.add(games[i].clone());
                        }
                        _ => deliver(&mut slots, &mut server)?,
                    }
                }
                for game in &games {
                    slots.add(game.clone());
                }
                deliver(&mut slots, &mut server)?;
                let preferred = store_all(&games).unwrap();
                prop_assert_eq!(server.map(|e| e.score_id), Some(preferred.score_id));
                if board.ranking() == Ranking::First {
                    let first = games.iter().map(|e| e.played_at).min().unwrap();
                    prop_assert_eq!(preferred.played_at, first);
                }
            }
        }

        #[test]
        fn automatic_retries_wait_at_most_five_minutes(
            failures in proptest::collection::vec(
                (prop_oneof![Just(Failure::Network), (500u16..600).prop_map(|s| Failure::http(s, None, Some("3600")))],
                 0.0f64..1.0),
                1..30),
        ) {
            let mut sync = SyncState::default();
            // The run's length: the server's first answer after a spell offline restarts it.
            let mut run = 0;
            let mut offline = false;
            for (failure, jitter) in &failures {
                sync.record_failure(SCORE, failure, NOON, *jitter);
                prop_assert!(!sync.blocked);
                prop_assert!(sync.next_attempt_at > NOON);
                prop_assert!(sync.next_attempt_at - NOON <= MAX_DELAY_MS);
                run = if offline && !failure.is_unreachable() { 1 } else { run + 1 };
                offline = failure.is_unreachable();
                prop_assert_eq!(sync.attempts, run);
            }
        }
    }
}
