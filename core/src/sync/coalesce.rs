//! Merging sync triggers into flushes, one at a time (docs/sync.md, "Triggers").
//!
//! Many triggers fire together (app start, `online`, the page becoming visible), so a
//! flush starts [`COALESCE_WINDOW_MS`] after the first trigger and every trigger until
//! then rides along. Only one flush runs at a time in a page or worker; a trigger that
//! arrives during a flush may have added an entry the flush already read past, so it
//! schedules one more flush after it. (Across tabs and the service worker, Web Locks
//! serialise flushes; this is the per-context half.)
//!
//! A small state machine with the clock passed in: the caller owns the timer and calls
//! [`Coalescer::on_wake`] when it fires.

/// How long after the first trigger a flush starts.
pub const COALESCE_WINDOW_MS: u64 = 250;

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
    /// A flush of `kind` starts when the caller's timer wakes it.
    Scheduled { kind: FlushKind },
    /// A flush is running; triggers since it started wait in `next`.
    Running { next: Option<Waiting> },
}

/// Triggers that arrived during a running flush.
#[derive(Debug)]
struct Waiting {
    first_trigger_at: u64,
    kind: FlushKind,
}

impl Coalescer {
    pub fn new() -> Coalescer {
        Coalescer::default()
    }

    /// A trigger fired at `now_ms`. Returns the time to wake at when this trigger
    /// scheduled a new flush; `None` when it joined one already scheduled or waiting.
    pub fn on_trigger(&mut self, now_ms: u64, kind: FlushKind) -> Option<u64> {
        match &mut self.state {
            State::Idle => {
                let at = now_ms.saturating_add(COALESCE_WINDOW_MS);
                self.state = State::Scheduled { kind };
                Some(at)
            }
            State::Scheduled { kind: scheduled } => {
                *scheduled = scheduled.merge(kind);
                None
            }
            State::Running {
                next: Some(waiting),
            } => {
                waiting.kind = waiting.kind.merge(kind);
                None
            }
            State::Running { next } => {
                *next = Some(Waiting {
                    first_trigger_at: now_ms,
                    kind,
                });
                None
            }
        }
    }

    /// The wake-up time arrived. Returns the flush to run now, or `None` if there is
    /// none to start (a stray timer, or a flush already running).
    pub fn on_wake(&mut self) -> Option<FlushKind> {
        let State::Scheduled { kind } = self.state else {
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
            Some(Waiting {
                first_trigger_at,
                kind,
            }) => {
                let at = first_trigger_at
                    .saturating_add(COALESCE_WINDOW_MS)
                    .max(now_ms);
                self.state = State::Scheduled { kind };
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

    #[test]
    fn triggers_within_the_window_make_one_flush() {
        let mut c = Coalescer::new();
        assert_eq!(c.on_trigger(1_000, Automatic), Some(1_250));
        assert_eq!(c.on_trigger(1_100, Automatic), None);
        assert_eq!(c.on_trigger(1_249, Automatic), None);
        assert!(!c.is_flushing());
        assert_eq!(c.on_wake(), Some(Automatic));
        assert!(c.is_flushing());
        assert_eq!(c.on_flush_finished(1_400), None);
        assert!(!c.is_flushing());
        // The next trigger starts a new window.
        assert_eq!(c.on_trigger(2_000, Automatic), Some(2_250));
    }

    #[test]
    fn one_flush_at_a_time_then_one_more_for_what_came_during_it() {
        let mut c = Coalescer::new();
        c.on_trigger(0, Automatic);
        assert_eq!(c.on_wake(), Some(Automatic));
        // Triggers during the flush start nothing now.
        assert_eq!(c.on_trigger(300, Automatic), None);
        assert_eq!(c.on_trigger(400, Automatic), None);
        assert_eq!(
            c.on_wake(),
            None,
            "a stray timer does not start a second flush"
        );
        // The follow-up waits out the first waiting trigger's window...
        assert_eq!(c.on_flush_finished(450), Some(550));
        assert!(!c.is_flushing());
        assert_eq!(
            c.on_trigger(500, Automatic),
            None,
            "joins the scheduled follow-up"
        );
        assert_eq!(c.on_wake(), Some(Automatic));
        // ...or starts at once when that window has already passed.
        c.on_trigger(600, Automatic);
        assert_eq!(c.on_flush_finished(5_000), Some(5_000));
    }

    #[test]
    fn a_manual_trigger_makes_the_merged_flush_manual() {
        let mut c = Coalescer::new();
        c.on_trigger(0, Automatic);
        c.on_trigger(10, Manual);
        c.on_trigger(20, Automatic);
        assert_eq!(c.on_wake(), Some(Manual));

        c.on_trigger(30, Manual);
        c.on_trigger(40, Automatic);
        c.on_flush_finished(50);
        assert_eq!(c.on_wake(), Some(Manual));

        c.on_trigger(60, Automatic);
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
        c.on_trigger(0, Automatic);
        c.on_trigger(10, Reconnect);
        c.on_trigger(20, Automatic);
        assert_eq!(c.on_wake(), Some(Reconnect));
        c.on_trigger(30, Reconnect);
        c.on_trigger(40, Manual);
        c.on_flush_finished(50);
        assert_eq!(c.on_wake(), Some(Manual));
        c.on_trigger(60, Reconnect);
        c.on_flush_finished(70);
        assert_eq!(c.on_wake(), Some(Reconnect));
    }

    #[test]
    fn stray_calls_change_nothing() {
        let mut c = Coalescer::new();
        assert_eq!(c.on_wake(), None);
        assert_eq!(c.on_flush_finished(0), None);
        assert_eq!(c.on_trigger(0, Automatic), Some(250));
        assert_eq!(c.on_flush_finished(10), None, "no flush was running");
        assert_eq!(c.on_wake(), Some(Automatic));
    }
}
