//! What the profile panel and the settings show of the player's profile
//! ([`ProfileView`]), made from the stored queue where it is read: in the `drawn`
//! module, and in the panels' changes. The main module reads only the local profile
//! (docs/performance.md, "What loads first").

use keydo_core::profile::{Profile, ProfileQueue, QueuedOperation};

/// What the profile panel and the settings show.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileView {
    /// Confirmed, with the queued changes on top.
    pub profile: Profile,
    /// The version of the profile the server last confirmed.
    pub version: i64,
    /// Changes not yet answered by the server.
    pub queued: usize,
    /// Answered with a change dropped, or refused: shown until dismissed.
    pub notices: Vec<QueuedOperation>,
    /// Whether the stored profile has been read (before, `profile` holds the
    /// defaults): its local profile, or the queue.
    pub loaded: bool,
}

impl ProfileView {
    /// The view of `queue`, as read.
    pub fn of(queue: &ProfileQueue) -> ProfileView {
        ProfileView {
            profile: queue.local(),
            version: queue.confirmed().version,
            queued: queue.in_line(),
            notices: queue
                .operations()
                .iter()
                .filter(|op| !op.is_queued())
                .cloned()
                .collect(),
            loaded: true,
        }
    }
}
