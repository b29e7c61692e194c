//! Friendly generated display names ("Swift Otter 42") for saves created without one.

const ADJECTIVES: &[&str] = &[
    "Swift", "Quiet", "Brave", "Clever", "Nimble", "Steady", "Bright", "Calm", "Eager", "Gentle",
    "Keen", "Lucky", "Merry", "Noble", "Rapid", "Sunny", "Witty", "Bold", "Deft", "Jolly",
];

const ANIMALS: &[&str] = &[
    "Otter", "Falcon", "Panda", "Fox", "Heron", "Lynx", "Crane", "Badger", "Dolphin", "Tiger",
    "Sparrow", "Koala", "Marten", "Gecko", "Raven", "Bison", "Yak", "Hare", "Owl", "Wren",
];

/// A random name like "Swift Otter 42": adjective, animal, a number from 10 to 99.
pub fn friendly_name() -> String {
    let adjective = ADJECTIVES[fastrand::usize(..ADJECTIVES.len())];
    let animal = ANIMALS[fastrand::usize(..ANIMALS.len())];
    format!("{adjective} {animal} {}", fastrand::u8(10..=99))
}

#[cfg(test)]
mod tests {
    use super::*;
    use keydo_core::api::DISPLAY_NAME_CHARS;

    #[test]
    fn every_possible_name_is_a_valid_display_name() {
        let longest = ADJECTIVES.iter().map(|a| a.len()).max().unwrap()
            + ANIMALS.iter().map(|a| a.len()).max().unwrap()
            + " ".len() * 2
            + 2;
        assert!(longest <= *DISPLAY_NAME_CHARS.end());
        for _ in 0..100 {
            let name = friendly_name();
            assert!(DISPLAY_NAME_CHARS.contains(&name.chars().count()), "{name}");
        }
    }
}
