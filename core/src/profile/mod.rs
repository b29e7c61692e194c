//! The profile that follows the player (docs/profile.md): its fields and settings, how
//! the server applies a change made on a device that had not seen the latest one, and
//! the order a device sends its changes in.

mod field;
mod queue;
mod resolve;
mod settings;
#[cfg(test)]
mod tests;

pub use field::{ChangeError, Changes, Field, FieldValue, Profile, SettingsChanges};
pub use queue::{
    Confirmed, LOADED_IN_LINE, LineSummary, LocalProfile, OPERATIONS_PER_REQUEST, OperationState,
    ProfileQueue, QueuedOperation, Write, held_for_sending,
};
pub use resolve::{
    Author, Conflict, Kept, Policy, ProfileOperation, ProfileRecord, Resolution, Stamp,
};
pub use settings::{Caret, FONT_SIZES, INPUT_METHOD_MAX_CHARS, Settings, Theme};
