//! How the server applies one profile operation (docs/profile.md, "Conflicts").
//!
//! Every changed field is a three-way decision between the operation's `base` (the
//! value the client saw), its change, and the server's value now. A field whose server
//! value still equals the base was not changed since: the change applies. A field both
//! sides changed is settled by the field's policy:
//! - set by an operator (a name reset by moderation): `server-wins`, the change is
//!   dropped and reported;
//! - otherwise `client-wins-if-newer` (the name, and settings through
//!   `merge-disjoint`'s fallback): the change applies only if it was made strictly
//!   later than the server's value; equal times keep the server's.
//!
//! The server's record is the base of the merge, so fields the operation does not name
//! are never touched. For an operation whose `baseVersion` is current the base equals
//! the server's values and every change applies; a stale one goes through the same
//! rule, field by field.

use super::field::{Changes, Field, FieldValue, Profile};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Who set a field's value last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Author {
    #[default]
    Player,
    Operator,
}

/// When and by whom a field was last set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stamp {
    /// The change's own time (the client's `changedAt`, or the server's clock for an
    /// operator), in unix milliseconds.
    pub at: u64,
    pub by: Author,
}

/// The server's profile: its version, values, and each field's [`Stamp`]. A field
/// without a stamp was never changed since the save was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileRecord {
    pub version: i64,
    pub profile: Profile,
    #[serde(default)]
    pub stamps: BTreeMap<Field, Stamp>,
}

/// `PATCH /api/saves/me`: one profile operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProfileOperation {
    /// The profile version the client had when it made the change.
    pub base_version: i64,
    /// The values the changed fields had on the client before the change.
    pub base: Changes,
    pub changes: Changes,
    /// When the player made the change, by the client's clock, in unix milliseconds.
    pub changed_at: u64,
}

/// The rule that settled a conflict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Policy {
    ServerWins,
    ClientWinsIfNewer,
    MergeDisjoint,
}

/// Whose value a conflicting field kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kept {
    /// The operation's change.
    Yours,
    /// The value the server had.
    Server,
}

/// A field the operation and the server both changed, and how it was settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Conflict {
    pub field: Field,
    pub policy: Policy,
    pub kept: Kept,
    /// Who set the value the operation met on the server.
    pub by: Author,
}

impl Conflict {
    /// Whether the player's change was dropped.
    pub fn lost(&self) -> bool {
        self.kept == Kept::Server
    }
}

/// The record after an operation, and the conflicts it met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub record: ProfileRecord,
    pub conflicts: Vec<Conflict>,
}

impl ProfileRecord {
    /// A new save's record: version 1, nothing stamped.
    pub fn new(profile: Profile) -> ProfileRecord {
        ProfileRecord {
            version: 1,
            profile,
            stamps: BTreeMap::new(),
        }
    }

    /// Applies `operation` by the rules above. The version grows by one if any value
    /// changed, and stays if the operation changed nothing (all its changes were
    /// already there, or all lost).
    pub fn resolve(&self, operation: &ProfileOperation) -> Resolution {
        let mut record = self.clone();
        let mut conflicts = Vec::new();
        let mut changed = false;
        for change in operation.changes.values() {
            let field = change.field();
            let now = self.profile.get(field);
            if now == change {
                continue;
            }
            let base = operation.base.get(field);
            let stamp = self.stamps.get(&field).copied().unwrap_or_default();
            let applies = if base.as_ref() == Some(&now) {
                true
            } else {
                let conflict = settle(field, stamp, operation.changed_at);
                conflicts.push(conflict);
                conflict.kept == Kept::Yours
            };
            if applies {
                record.set(change, operation.changed_at, Author::Player);
                changed = true;
            }
        }
        if changed {
            record.version += 1;
        }
        Resolution { record, conflicts }
    }

    /// An operator sets a field (a name reset by moderation): it wins over every
    /// change the players made before they saw it.
    pub fn set_by_operator(&self, value: FieldValue, now_ms: u64) -> ProfileRecord {
        let mut record = self.clone();
        record.set(value, now_ms, Author::Operator);
        record.version += 1;
        record
    }

    fn set(&mut self, value: FieldValue, at: u64, by: Author) {
        self.stamps.insert(value.field(), Stamp { at, by });
        self.profile.set(value);
    }
}

/// A field both sides changed: the operator's value stands; otherwise the strictly
/// later change wins.
fn settle(field: Field, server: Stamp, changed_at: u64) -> Conflict {
    let policy = match (server.by, field) {
        (Author::Operator, _) => Policy::ServerWins,
        (Author::Player, Field::DisplayName) => Policy::ClientWinsIfNewer,
        (Author::Player, _) => Policy::MergeDisjoint,
    };
    let kept = if policy != Policy::ServerWins && changed_at > server.at {
        Kept::Yours
    } else {
        Kept::Server
    };
    Conflict {
        field,
        policy,
        kept,
        by: server.by,
    }
}
