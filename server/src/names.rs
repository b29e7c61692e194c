//! Display names on the server: generated ones ("Swift Otter 4821") for saves created
//! without a name, one save per name, where names that look alike are one name, and
//! each refusal's code (the rules live in `keydo_core::names`; docs/replay.md).

use crate::error::ApiError;
use crate::store::Entry as BoardEntry;
use crate::store::{NameTaken, Store};
use keydo_core::api::ApiCode;
use keydo_core::names::{DisplayName, NameError, look_alike_key};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
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

/// How many hex digits of a player's tag a board shows after a look-alike name.
const SUFFIX_DIGITS: usize = 4;

/// For each line of a board, the player's tag where its name could be taken for
/// another player's (docs/replay.md, "Display names"): when another line of the same
/// board has a name with the same look-alike key, or when the save does not hold its
/// name's key (an older save holds it, or the name breaks today's rules). A save whose
/// key is still to be computed is judged by the first rule alone.
pub fn board_suffixes(entries: &[BoardEntry]) -> Vec<Option<String>> {
    let keys: Vec<String> = entries
        .iter()
        .map(|entry| look_alike_key(&entry.display_name))
        .collect();
    let mut lines_per_key: HashMap<&str, usize> = HashMap::new();
    for key in &keys {
        *lines_per_key.entry(key).or_default() += 1;
    }
    entries
        .iter()
        .zip(&keys)
        .map(|(entry, key)| {
            let shared = lines_per_key[key.as_str()] > 1;
            let lost_its_key = entry.name_key.as_ref().is_some_and(|held| held != key);
            (shared || lost_its_key).then(|| player_tag(&entry.player_id))
        })
        .collect()
}

/// A short tag of the player, the same on every board: the first hex digits of the
/// SHA-256 of its id (so the id itself stays private).
fn player_tag(player_id: &str) -> String {
    let digest = hex::encode_upper(Sha256::digest(player_id.as_bytes()));
    digest[..SUFFIX_DIGITS].to_owned()
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

    fn entry(player_id: &str, display_name: &str, name_key: Option<&str>) -> BoardEntry {
        BoardEntry {
            display_name: display_name.to_owned(),
            value: 1,
            achieved_at: 1,
            player_id: player_id.to_owned(),
            name_key: name_key.map(str::to_owned),
        }
    }

    #[test]
    fn look_alike_names_on_one_board_show_their_players_tags() {
        let otter = DisplayName::parse("Swift Otter").unwrap().key();
        let entries = [
            entry("a", "Swift Otter", Some(&otter)),
            entry("b", "Calm Dolphin", None),
            // A Cyrillic О, keyed before look-alike keys existed: still to be keyed.
            entry("c", "Swift \u{41e}tter", None),
        ];
        let suffixes = board_suffixes(&entries);
        assert_eq!(suffixes[1], None);
        let (a, c) = (suffixes[0].clone().unwrap(), suffixes[2].clone().unwrap());
        assert_ne!(a, c);
        assert_eq!(a.len(), SUFFIX_DIGITS);
        assert_eq!(
            board_suffixes(&entries[..1]),
            [None],
            "alone, nothing to tell apart"
        );
    }

    #[test]
    fn a_save_without_its_names_key_shows_its_tag_on_any_board() {
        let legacy = entry("c", "Swift \u{41e}tter", Some("legacy:c"));
        let suffixes = board_suffixes(&[legacy]);
        assert_eq!(suffixes, [Some(player_tag("c"))]);
        let keyed = DisplayName::parse("Calm Dolphin").unwrap().key();
        assert_eq!(
            board_suffixes(&[entry("d", "Calm Dolphin", Some(&keyed))]),
            [None]
        );
    }

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
