//! Display names on the server: generated ones ("Swift Otter 4821") for saves created
//! without a name, one save per name, where names that look alike are one name, and
//! each refusal's code (the rules live in `keydo_core::names`; docs/replay.md).

use crate::error::ApiError;
use crate::store::{NameTaken, Store};
use keydo_core::api::ApiCode;
use keydo_core::names::{DisplayName, NameError};
use uuid::Uuid;

const ADJECTIVES: &[&str] = &[
    "Swift", "Quiet", "Brave", "Clever", "Nimble", "Steady", "Bright", "Calm", "Eager", "Gentle",
    "Keen", "Lucky", "Merry", "Noble", "Rapid", "Sunny", "Witty", "Bold", "Deft", "Jolly",
];

const ANIMALS: &[&str] = &[
    "Otter", "Falcon", "Panda", "Fox", "Heron", "Lynx", "Crane", "Badger", "Dolphin", "Tiger",
    "Sparrow", "Koala", "Marten", "Gecko", "Raven", "Bison", "Yak", "Hare", "Owl", "Wren",
];

/// How many generated names are tried before giving up: with 3.6 million of them, a
/// try fails only as often as that share of them is taken.
const GENERATED_NAME_TRIES: usize = 16;

/// A random name like "Swift Otter 4821": adjective, animal, a number from 1000 to 9999.
pub fn friendly_name() -> DisplayName {
    let adjective = ADJECTIVES[fastrand::usize(..ADJECTIVES.len())];
    let animal = ANIMALS[fastrand::usize(..ANIMALS.len())];
    let name = format!("{adjective} {animal} {}", fastrand::u16(1000..=9999));
    DisplayName::parse(&name).expect("generated names follow the name rules")
}

/// The name a player asked for, if it follows the rules.
pub fn requested(raw: &str) -> Result<DisplayName, ApiError> {
    DisplayName::parse(raw).map_err(|error| refused(&error))
}

/// The answer to a name the rules refuse: a code of its own for names that could
/// impersonate (docs/api.md), `INVALID_DISPLAY_NAME` for the rest.
pub fn refused(error: &NameError) -> ApiError {
    let code = match error {
        NameError::Invisible(_) => ApiCode::NameInvisibleCharacter,
        NameError::Blank => ApiCode::NameBlank,
        NameError::Length(_) | NameError::Character(_) | NameError::StackedMarks => {
            ApiCode::InvalidDisplayName
        }
    };
    ApiError::new(code, error.to_string())
}

/// The names to try for a new save, in order: the one asked for, or up to
/// [`GENERATED_NAME_TRIES`] generated ones.
pub fn candidates(requested: Option<DisplayName>) -> impl Iterator<Item = DisplayName> {
    let tries = if requested.is_some() {
        1
    } else {
        GENERATED_NAME_TRIES
    };
    requested
        .into_iter()
        .chain(std::iter::repeat_with(friendly_name))
        .take(tries)
}

/// The answer when every candidate was taken: the name asked for is someone else's
/// (422), or generated names have run out (an operator's problem, 500).
pub fn no_free_name(requested: bool) -> ApiError {
    if requested {
        ApiError::new(
            ApiCode::NameTaken,
            "Another player already has this name, or one that looks the same (names differing only in case, width or look-alike letters, such as a Latin o and a Cyrillic о, are the same name).",
        )
    } else {
        ApiError::internal("no free generated name")
    }
}

/// Why an operator's name reset did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("{0}")]
    Invalid(keydo_core::names::NameError),
    #[error("another player already has this name")]
    Taken,
    #[error("no player has the id {0}")]
    NoSuchPlayer(Uuid),
    #[error("no free generated name")]
    NoFreeName,
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

/// Sets an operator's name for the player at `now_ms`: `requested`, or a free generated
/// one, stamped so it wins over the player's earlier changes (`server-wins`). Returns
/// the name and the profile's new version.
pub async fn reset(
    store: &Store,
    player_id: Uuid,
    requested: Option<&str>,
    now_ms: i64,
) -> Result<(DisplayName, i64), ResetError> {
    let requested_name = requested
        .map(DisplayName::parse)
        .transpose()
        .map_err(ResetError::Invalid)?;
    for name in candidates(requested_name) {
        match store.reset_name(player_id, name.clone(), now_ms).await? {
            None => return Err(ResetError::NoSuchPlayer(player_id)),
            Some(Ok(version)) => return Ok((name, version)),
            Some(Err(NameTaken)) => {}
        }
    }
    Err(if requested.is_some() {
        ResetError::Taken
    } else {
        ResetError::NoFreeName
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_possible_generated_name_is_a_valid_display_name() {
        let longest = ADJECTIVES.iter().map(|a| a.len()).max().unwrap()
            + ANIMALS.iter().map(|a| a.len()).max().unwrap()
            + " ".len() * 2
            + 4;
        assert!(longest <= 24);
        for adjective in ADJECTIVES {
            for animal in ANIMALS {
                let name = format!("{adjective} {animal} 9999");
                assert_eq!(DisplayName::parse(&name).unwrap().as_str(), name);
            }
        }
        let name = friendly_name().to_string();
        let number: u16 = name.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((1000..=9999).contains(&number), "{name}");
    }
}
