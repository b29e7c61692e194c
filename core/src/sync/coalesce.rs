//! Merging sync triggers into flushes, one at a time (docs/sync.md, "Triggers").
//!
//! Many triggers fire together (app start, `online`, the page becoming visible), so a
//! flush starts [`COALESCE_WINDOW_MS`] after the first trigger and every trigger until
//! then rides along. A profile change waits [`CHANGE_WINDOW_MS`] instead: a player
//! changing settings clicks in bursts, one request carries up to 16 changes, and a
//! flush amid the clicks takes turns with their writes on the same stores; a trigger
//! with a shorter window brings the flush forward. Only one flush runs at a time in a
//! page or worker; a trigger that arrives during a flush may have added an entry the
//! flush already read past, so it schedules one more flush after it. (Across tabs and
//! the service worker, Web Locks serialise flushes; this is the per-context half.)
//!
//! A small state machine with the clock passed in: the caller owns the timer and calls
//! [`Coalescer::on_wake`] when it fires.

/// How long after the first trigger a flush starts.
pub const COALESCE_WINDOW_MS: u64 = 250;
/// How long after a profile change a flush starts, unless another trigger asks sooner.
pub const CHANGE_WINDOW_MS: u64 = 1_000;

/// Which entries a flush sends, from the least to the most demanding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FlushKind {
    /// A result was saved, the page became visible, a backoff timer fired: entries
    /// whose wait is over; blocked entries stay.
    Automatic,
    /// Connectivity may be back (the `online` event, app start, the service worker's
    /// `sync` event): as [`FlushKind::Automatic`], plus every entry whose last failure
    /// was only for want of a network, at once. Waits the server asked for still hold.
    Reconnect,
    /// The player pressed Retry: every entry, ignoring waits, blocked ones included.
    Manual,
}

impl FlushKind {
    /// Merged triggers flush as much as the most demanding of them asked for.
    fn merge(self, other: FlushKind) -> FlushKind {
        self.max(other)
    }
}

/// Whether a flush is scheduled or running, and what is waiting for the next one.
#[derive(Debug, Default)]
pub struct Coalescer {
    state: State,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Idle,
    /// A flush of `kind` starts at `at`, when the caller's timer wakes it.
    Scheduled { kind: FlushKind, at: u64 },
    /// A flush is running; triggers since it started wait in `next`.
    Running { next: Option<Waiting> },
}

/// Triggers that arrived during a running flush.
#[derive(Debug)]
struct Waiting {
    /// The earliest end of their windows.
    due_at: u64,
    kind: FlushKind,
}

impl Coalescer {
    pub fn new() -> Coalescer {
        Coalescer::default()
    }

    /// A trigger fired at `now_ms`, whose flush may wait `window_ms`
    /// ([`COALESCE_WINDOW_MS`], or [`CHANGE_WINDOW_MS`] for a profile change). Returns the time to wake at when it scheduled a flush or brought the
    /// scheduled one forward; `None` when it joined one. (The timer set for the later
    /// time finds that flush started, and starts nothing, or a flush scheduled since,
    /// a little early.)
    pub fn on_trigger(&mut self, now_ms: u64, kind: FlushKind, window_ms: u64) -> Option<u64> {
        let due_at = now_ms.saturating_add(window_ms);
        match &mut self.state {
            State::Idle => {
                self.state = State::Scheduled { kind, at: due_at };
                Some(due_at)
            }
            State::Scheduled {
                kind: scheduled,
                at,
            } => {
                *scheduled = scheduled.merge(kind);
                (due_at < *at).then(|| {
                    *at = due_at;
                    due_at
                })
            }
            State::Running {
                next: Some(waiting),
            } => {
                waiting.kind = waiting.kind.merge(kind);
                waiting.due_at = waiting.due_at.min(due_at);
                None
            }
            State::Running { next } => {
                *next = Some(Waiting { due_at, kind });
                None
            }
        }
    }

    /// The wake-up time arrived. Returns the flush to run now, or `None` if there is
    /// none to start (a stray timer, or a flush already running).
    pub fn on_wake(&mut self) -> Option<FlushKind> {
        let State::Scheduled { kind, .. } = self.state else {
            return None;
        };
        self.state = State::Running { next: None };
        Some(kind)
    }

    /// The running flush ended at `now_ms`, however it ended. Returns the time to wake
    /// at when triggers arrived during it.
    pub fn on_flush_finished(&mut self, now_ms: u64) -> Option<u64> {
        let State::Running { next } = &mut self.state else {
            return None;
        };
        match next.take() {
            None => {
                self.state = State::Idle;
                None
            }
            Some(Waiting { due_at, kind }) => {
                let at = due_at.max(now_ms);
                self.state = State::Scheduled { kind, at };
                Some(at)
            }
        }
    }

    /// Whether a flush is running (the single-flight flag).
    pub fn is_flushing(&self) -> bool {
        matches!(self.state, State::Running { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use FlushKind::{Automatic, Manual, Reconnect};

    const WINDOW: u64 = COALESCE_WINDOW_MS;
    const CHANGE: u64 = CHANGE_WINDOW_MS;

    #[test]
    fn triggers_within_the_window_make_one_flush() {
        let mut c = Coalescer::new();
        assert_eq!(c.on_trigger(1_000, Automatic, WINDOW), Some(1_250));
        assert_eq!(c.on_trigger(1_100, Automatic, WINDOW), None);
        assert_eq!(c.on_trigger(1_249, Automatic, WINDOW), None);
        assert!(!c.is_flushing());
        assert_eq!(c.on_wake(), Some(Automatic));
        assert!(c.is_flushing());
        assert_eq!(c.on_flush_finished(1_400), None);
        assert!(!c.is_flushing());
        // The next trigger starts a new window.
        assert_eq!(c.on_trigger(2_000, Automatic, WINDOW), Some(2_250));
    }

    #[test]
    fn one_flush_at_a_time_then_one_more_for_what_came_during_it() {
        let mut c = Coalescer::new();
        c.on_trigger(0, Automatic, WINDOW);
        assert_eq!(c.on_wake(), Some(Automatic));
        // Triggers during the flush start nothing now.
        assert_eq!(c.on_trigger(300, Automatic, WINDOW), None);
        assert_eq!(c.on_trigger(400, Automatic, WINDOW), None);
        assert_eq!(
            c.on_wake(),
            None,
            "a stray timer does not start a second flush"
        );
        // The follow-up waits out the first waiting trigger's window...
        assert_eq!(c.on_flush_finished(450), Some(550));
        assert!(!c.is_flushing());
        assert_eq!(
            c.on_trigger(500, Automatic, WINDOW),
            None,
            "joins the scheduled follow-up"
        );
        assert_eq!(c.on_wake(), Some(Automatic));
        // ...or starts at once when that window has already passed.
        c.on_trigger(600, Automatic, WINDOW);
        assert_eq!(c.on_flush_finished(5_000), Some(5_000));
    }

    #[test]
    fn a_manual_trigger_makes_the_merged_flush_manual() {
        let mut c = Coalescer::new();
        c.on_trigger(0, Automatic, WINDOW);
        c.on_trigger(10, Manual, WINDOW);
        c.on_trigger(20, Automatic, WINDOW);
        assert_eq!(c.on_wake(), Some(Manual));

        c.on_trigger(30, Manual, WINDOW);
        c.on_trigger(40, Automatic, WINDOW);
        c.on_flush_finished(50);
        assert_eq!(c.on_wake(), Some(Manual));

        c.on_trigger(60, Automatic, WINDOW);
        c.on_flush_finished(70);
        assert_eq!(
            c.on_wake(),
            Some(Automatic),
            "a manual flush does not stick"
        );
    }

    #[test]
    fn a_reconnect_outranks_automatic_triggers_but_not_a_manual_one() {
        let mut c = Coalescer::new();
        c.on_trigger(0, Automatic, WINDOW);
        c.on_trigger(10, Reconnect, WINDOW);
        c.on_trigger(20, Automatic, WINDOW);
        assert_eq!(c.on_wake(), Some(Reconnect));
        c.on_trigger(30, Reconnect, WINDOW);
        c.on_trigger(40, Manual, WINDOW);
        c.on_flush_finished(50);
        assert_eq!(c.on_wake(), Some(Manual));
        c.on_trigger(60, Reconnect, WINDOW);
        c.on_flush_finished(70);
        assert_eq!(c.on_wake(), Some(Reconnect));
    }

    #[test]
    fn profile_changes_wait_their_longer_window_unless_a_trigger_asks_sooner() {
        let mut c = Coalescer::new();
        assert_eq!(c.on_trigger(0, Automatic, CHANGE), Some(1_000));
        assert_eq!(c.on_trigger(400, Automatic, CHANGE), None);
        // A result saved meanwhile goes within its own window: the flush comes forward.
        assert_eq!(c.on_trigger(500, Automatic, WINDOW), Some(750));
        assert_eq!(c.on_trigger(600, Automatic, WINDOW), None);
        assert_eq!(c.on_wake(), Some(Automatic));
        assert_eq!(c.on_wake(), None, "the timer set for 1,000 starts nothing");

        // During a flush the earliest window wins, whatever the order.
        assert_eq!(c.on_trigger(800, Automatic, CHANGE), None);
        assert_eq!(c.on_trigger(900, Manual, WINDOW), None);
        assert_eq!(c.on_flush_finished(950), Some(1_150));
        assert_eq!(c.on_wake(), Some(Manual));
        assert_eq!(c.on_trigger(1_000, Automatic, CHANGE), None);
        assert_eq!(c.on_flush_finished(1_200), Some(2_000));
    }

    #[test]
    fn stray_calls_change_nothing() {
        let mut c = Coalescer::new();
        assert_eq!(c.on_wake(), None);
        assert_eq!(c.on_flush_finished(0), None);
        assert_eq!(c.on_trigger(0, Automatic, WINDOW), Some(250));
        assert_eq!(c.on_flush_finished(10), None, "no flush was running");
        assert_eq!(c.on_wake(), Some(Automatic));
    }
}
