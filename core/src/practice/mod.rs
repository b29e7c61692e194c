//! Practice that adapts to the player (docs/practice.md): per-unit statistics read from
//! the input logs of finished games (`stats`), and lessons generated from them: English
//! letters unlocked one by one with pseudo-words that stress the weakest (`english`),
//! and pools of common 字 unlocked one by one with passages of real 词 that stress the
//! weakest (`chinese`); drills of a game's missed or slowest words (`drill`); and the
//! player's own text, repeated or shuffled (`custom`).

pub mod chinese;
pub mod custom;
pub mod drill;
pub mod english;
pub mod stats;

use crate::game::input_log::InputLog;
use crate::game::mode::{Language, Mode};
use crate::game::prompt::Prompt;
use crate::game::texts::WordList;
use chinese::ZhLists;
use stats::{Target, UnitStats};

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

    /// Folds one finished game into `stats`, then unlocks what the rules now allow in
    /// its language, never locking anything again. `target` is the target the player
    /// had set when the game ended.
    pub fn add_game(
        &self,
        stats: &mut UnitStats,
        mode: Mode,
        prompt: &Prompt,
        log: &InputLog,
        target: Target,
    ) {
        stats.record_game(mode, prompt, log);
        match mode.language() {
            Language::English => self.english.unlock(stats, target),
            Language::Chinese => self.chinese.unlock(stats, target),
        }
    }

    /// The store the stored games give, folded in the order given: always the store
    /// that [`Course::add_game`] built game by game from the same games.
    pub fn rebuild<'a>(&self, games: impl IntoIterator<Item = StoredGame<'a>>) -> UnitStats {
        let mut stats = UnitStats::default();
        for game in games {
            self.add_game(&mut stats, game.mode, game.prompt, game.log, game.target);
        }
        stats
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

/// One stored game, as [`Course::rebuild`] reads it.
#[derive(Debug, Clone, Copy)]
pub struct StoredGame<'a> {
    pub mode: Mode,
    pub prompt: &'a Prompt,
    pub log: &'a InputLog,
    /// The target set when the game was played.
    pub target: Target,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::corpora::Corpora;
    use crate::game::prompt_id::Seed;
    use crate::verify::simulate::{Typist, play, play_prompt};
    use proptest::prelude::*;

    /// A game of the shipped modes or a practice lesson, typed by a simulated typist.
    fn game_strategy() -> impl Strategy<Value = (u8, u64, f64, u32, u32)> {
        (
            0..5u8,
            1..Seed::MAX,
            // 50 ms (240 WPM) to 500 ms (24 WPM) between keys.
            50.0..500.0f64,
            prop_oneof![Just(0u32), 5..40u32],
            20..80u32,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        #[test]
        fn folding_stored_games_one_by_one_equals_rebuilding(
            games in proptest::collection::vec(game_strategy(), 1..8)
        ) {
            let course = Course::shipped();
            let corpora = Corpora::shipped();
            // The page keeps the store as JSON between games.
            let mut kept = serde_json::to_string(&UnitStats::default()).unwrap();
            let mut played = Vec::new();
            for &(kind, seed, interval, mistakes, speed) in &games {
                let typist = Typist {
                    mean_interval_ms: interval,
                    mistake_every: mistakes,
                    seed,
                    ..Typist::steady_human(100)
                };
                let target = Target { wpm: speed, zi_per_minute: speed };
                let mut stats: UnitStats = serde_json::from_str(&kept).unwrap();
                let (mode, prompt) = match kind {
                    0 => (Mode::Words, course.english.lesson(&stats, target, seed).prompt),
                    1 => (Mode::Zh, course.chinese.lesson(&stats, target, seed).prompt),
                    kind => {
                        let mode = [Mode::Words, Mode::Quote, Mode::Zh][usize::from(kind - 2)];
                        let game = play(corpora, mode, Seed::new(seed).unwrap(), &typist);
                        (mode, corpora.prompt(mode, &game.prompt).unwrap())
                    }
                };
                let log = play_prompt(mode, &prompt, &typist).input_log();
                course.add_game(&mut stats, mode, &prompt, &log, target);
                kept = serde_json::to_string(&stats).unwrap();
                played.push((mode, prompt, log, target));
            }
            let rebuilt = course.rebuild(played.iter().map(|(mode, prompt, log, target)| {
                StoredGame { mode: *mode, prompt, log, target: *target }
            }));
            prop_assert_eq!(serde_json::from_str::<UnitStats>(&kept).unwrap(), rebuilt.clone());
            prop_assert_eq!(rebuilt.games as usize, played.len());
            prop_assert!(!rebuilt.english.is_empty() || !rebuilt.chinese.is_empty());
        }
    }
}
