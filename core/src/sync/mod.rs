//! The client's half of delivering results exactly once (docs/sync.md): the outbox and
//! its merge rules, what a failed request means, how long to wait before the next
//! attempt, when triggers become a flush, and what to send again after a server restore.

pub mod backoff;
pub mod classify;
pub mod coalesce;
pub mod heal;
pub mod outbox;
