//! Practice that adapts to the player (docs/practice.md): per-unit statistics read from
//! the input logs of finished games (`stats`), and lessons generated from them: English
//! letters unlocked one by one with pseudo-words that stress the weakest (`english`),
//! and pools of common 字 unlocked one by one with passages of real 词 that stress the
//! weakest (`chinese`).

pub mod chinese;
pub mod english;
pub mod stats;

use crate::game::texts::WordList;
use chinese::ZhLists;

/// Everything a lesson is built from: the English letter model and the Chinese lists.
/// Built once from the corpora the page loaded; unlocking follows its orders.
#[derive(Debug, Clone)]
pub struct Course {
    pub english: english::Course,
    pub chinese: chinese::Course,
}

impl Course {
    /// The course of the English word list and the Chinese lists.
    pub fn new(words: &WordList, zh: &ZhLists) -> Course {
        Course {
            english: english::Course::new(words),
            chinese: chinese::Course::new(zh),
        }
    }

    /// The course of the lists in `assets/texts/`, compiled in and built once.
    #[cfg(feature = "shipped-texts")]
    pub fn shipped() -> &'static Course {
        static SHIPPED: std::sync::OnceLock<Course> = std::sync::OnceLock::new();
        SHIPPED.get_or_init(|| {
            let zh = ZhLists::parse(
                include_str!("../../../assets/texts/zh_chars.txt"),
                include_str!("../../../assets/texts/zh_words.txt"),
            )
            .expect("the shipped Chinese lists are valid (checked by core's tests)");
            Course::new(&crate::game::corpora::Corpora::shipped().words, &zh)
        })
    }
}
