//! Practice (docs/practice.md): the course the lessons are drawn from, fetched from
//! `/texts/` when the practice panel first opens (so the first load costs nothing
//! more), and the player's statistics in the `practice` store.
//!
//! Practice games (lessons, 练错字 / 练慢字, custom text) are written to the `practice`
//! store only (a custom text's best beside its setting under `meta`): never to the
//! history, the bests or the outbox, so no board ever sees them. A game of
//! the boards reaches the store with its history row (`Records`), and the statistics
//! catch up with it here once the course is loaded.
//!
//! The first keystroke needs none of it: the statistics are read when practice is
//! first used, and the reading, the course and the writes run in the practice module
//! (docs/performance.md, "What loads first").

use super::texts::{LoadError, fetch};
use keydo_core::game::texts::WordList;
use keydo_core::practice::Course;
use keydo_core::practice::chinese::ZhLists;
use keydo_core::practice::custom::CustomText;
use keydo_core::practice::stats::Target;
use keydo_storage::{Db, Practice, PracticeGame, Recorded, StorageError};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use wasm_split_helpers::{SplitLoaderError, wasm_split};

/// Where loading the course stands.
#[derive(Clone)]
pub enum CourseState {
    NotLoaded,
    Loading,
    Loaded(Arc<Course>),
    Failed(String),
}

/// The course and the statistics, shared by the practice panel and the game.
#[derive(Clone, Copy)]
pub struct PracticeService {
    /// Whether the stored statistics were asked for ([`Self::open`]).
    opened: RwSignal<bool>,
    course: RwSignal<CourseState>,
    /// The store as last read or written; the default until read.
    practice: RwSignal<Practice>,
    /// The last storage failure, in words.
    error: RwSignal<Option<String>>,
    /// The custom text last set and its setting's personal best; `None` until read,
    /// or when none was ever set.
    custom: RwSignal<Option<(CustomText, Option<i64>)>>,
}

/// Whether a practice game was saved (`Some` once written): `Ok` with a custom text's
/// personal best after it, else why not.
pub type Saved = ReadSignal<Option<Result<Option<Recorded>, String>>>;

impl PracticeService {
    /// The service, with nothing read yet: the stored statistics and custom text are
    /// read by [`Self::open`], when practice is first used.
    pub fn start() -> PracticeService {
        PracticeService {
            opened: RwSignal::new(false),
            course: RwSignal::new(CourseState::NotLoaded),
            practice: RwSignal::new(Practice::default()),
            error: RwSignal::new(None),
            custom: RwSignal::new(None),
        }
    }

    /// Reads the stored target, statistics and custom text, once: when the panel opens
    /// or a practice game starts (a drill from a result screen can come first). The
    /// reading runs in the practice module (docs/performance.md, "What loads first").
    pub fn open(&self) {
        if self.opened.get_untracked() {
            return;
        }
        self.opened.set(true);
        let service = *self;
        spawn_local(async move {
            match read_stored(service).await {
                Ok(reading) => reading.await,
                Err(_) => {
                    service.opened.set(false);
                    service.error.try_set(Some(NOT_LOADED.to_owned()));
                }
            }
        });
    }

    /// [`Self::open`]'s reads.
    async fn read_stored(self) {
        self.update(async |db| db.practice().await);
        match open_and(async |db| db.custom_text().await).await {
            Ok(custom) => {
                // A text set meanwhile is newer than the one read.
                if self.custom.with_untracked(Option::is_none) {
                    self.custom.try_set(custom);
                }
            }
            Err(error) => web_sys::console::warn_1(&format!("keydo: {error}").into()),
        }
    }

    /// The custom text last set, with its setting's personal best (reactive).
    pub fn custom(&self) -> Signal<Option<(CustomText, Option<i64>)>> {
        self.custom.into()
    }

    /// Keeps `custom` as the custom text, here and across reloads; the signal
    /// returned turns `Some` once stored (`Err`: why not, the text still played).
    pub fn set_custom(&self, custom: CustomText) -> ReadSignal<Option<Result<(), String>>> {
        let done = RwSignal::new(None);
        let service = *self;
        // Shown at once with the best it had, if it is the setting already kept.
        let best = self.custom.with_untracked(|kept| match kept {
            Some((kept, best)) if kept.best_key() == custom.best_key() => *best,
            _ => None,
        });
        self.custom.set(Some((custom.clone(), best)));
        spawn_local(async move {
            let stored = open_and(async |db| db.set_custom_text(&custom).await).await;
            if let Ok(best) = &stored {
                service.set_custom_best(&custom, *best);
            }
            done.try_set(Some(stored.map(|_| ()).map_err(|e| e.to_string())));
        });
        done.read_only()
    }

    /// `best` as the personal best of `custom`, if it is still the text set.
    fn set_custom_best(&self, custom: &CustomText, best: Option<i64>) {
        self.custom.try_update(|kept| {
            if let Some((kept, kept_best)) = kept
                && kept.best_key() == custom.best_key()
            {
                *kept_best = best;
            }
        });
    }

    /// The course (reactive).
    pub fn course(&self) -> Signal<CourseState> {
        self.course.into()
    }

    /// The statistics and the target (reactive).
    pub fn practice(&self) -> Signal<Practice> {
        self.practice.into()
    }

    /// The last storage failure (reactive).
    pub fn error(&self) -> Signal<Option<String>> {
        self.error.into()
    }

    /// The target set now, stored with each game.
    pub fn target(&self) -> Target {
        self.practice.with_untracked(|p| p.target)
    }

    /// Fetches the lists and builds the course, once; then folds the games not yet
    /// folded.
    pub fn load_course(&self) {
        self.open();
        if !matches!(self.course.get_untracked(), CourseState::NotLoaded) {
            return;
        }
        let service = *self;
        spawn_local(async move {
            match load_course(service).await {
                Ok(loading) => loading.await,
                Err(_) => _ = service.error.try_set(Some(NOT_LOADED.to_owned())),
            }
        });
    }

    /// The course, fetched first if it is not loaded yet; `None` if it cannot be.
    async fn course_ready(&self) -> Option<Arc<Course>> {
        if let CourseState::Loaded(course) = self.course.get_untracked() {
            return Some(course);
        }
        self.course.set(CourseState::Loading);
        match fetch_course().await {
            Ok(course) => {
                let course = Arc::new(course);
                self.course.set(CourseState::Loaded(course.clone()));
                Some(course)
            }
            Err(error) => {
                self.course.set(CourseState::Failed(error.to_string()));
                None
            }
        }
    }

    /// Folds the games written since the statistics were last folded, if the course
    /// is loaded (a game of the boards just saved, say).
    pub fn catch_up(&self) {
        if let CourseState::Loaded(course) = self.course.get_untracked() {
            let service = *self;
            spawn_local(async move {
                // The course is loaded, so its module is in: the call cannot fail to load.
                _ = fold_new_games(service, course).await;
            });
        }
    }

    /// Records a practice game and folds it in (fetching the course first if a
    /// 练错字 drill came before the panel was opened); a game on a custom text also
    /// against its setting's best, with its value.
    pub fn record(&self, game: PracticeGame, custom: Option<(CustomText, i64)>) -> Saved {
        let done = RwSignal::new(None);
        let service = *self;
        spawn_local(async move {
            match record_game(service, game, custom, done).await {
                Ok(recording) => recording.await,
                Err(_) => _ = done.try_set(Some(Err(NOT_LOADED.to_owned()))),
            }
        });
        done.read_only()
    }

    /// [`Self::record`]'s work, in the practice module.
    async fn record_now(
        self,
        game: PracticeGame,
        custom: Option<(CustomText, i64)>,
        done: RwSignal<Option<Result<Option<Recorded>, String>>>,
    ) {
        let Some(course) = self.course_ready().await else {
            done.try_set(Some(Err("the practice lists could not be loaded".into())));
            return;
        };
        self.update(async move |db| {
            let outcome = match &custom {
                Some((custom, value)) => db
                    .record_custom_game(&course, &game, custom, *value)
                    .await
                    .map(|(practice, best)| (practice, Some(best))),
                None => db
                    .record_practice_game(&course, &game)
                    .await
                    .map(|practice| (practice, None)),
            };
            if let (Some((custom, _)), Ok((_, Some(best)))) = (&custom, &outcome) {
                self.set_custom_best(custom, Some(best.best));
            }
            done.try_set(Some(
                outcome
                    .as_ref()
                    .map(|(_, best)| *best)
                    .map_err(|e| e.to_string()),
            ));
            outcome.map(|(practice, _)| practice)
        });
    }

    /// Sets the target speeds.
    pub fn set_target(&self, target: Target) {
        self.update(async move |db| db.set_practice_target(target).await);
    }

    /// Runs `change` on a connection of its own and keeps the practice it returns.
    fn update(&self, change: impl AsyncFnOnce(&Db) -> Result<Practice, StorageError> + 'static) {
        let service = *self;
        spawn_local(async move {
            match open_and(change).await {
                Ok(practice) => {
                    service.practice.try_set(practice);
                    service.error.try_set(None);
                }
                Err(error) => {
                    web_sys::console::warn_1(&format!("keydo: {error}").into());
                    service.error.try_set(Some(error.to_string()));
                }
            }
        });
    }
}

/// Why practice could not be read or saved: its module could not be fetched.
const NOT_LOADED: &str =
    "the practice code could not be loaded; it is tried again when practice is next used";

/// Work of the service that runs in the practice module, once it is loaded.
type Task = Pin<Box<dyn Future<Output = ()>>>;

#[wasm_split(practice, fallible)]
fn read_stored(service: PracticeService) -> Result<Task, SplitLoaderError> {
    Ok(Box::pin(service.read_stored()))
}

#[wasm_split(practice, fallible)]
fn load_course(service: PracticeService) -> Result<Task, SplitLoaderError> {
    Ok(Box::pin(async move {
        if service.course_ready().await.is_some() {
            service.catch_up();
        }
    }))
}

#[wasm_split(practice, fallible)]
fn record_game(
    service: PracticeService,
    game: PracticeGame,
    custom: Option<(CustomText, i64)>,
    done: RwSignal<Option<Result<Option<Recorded>, String>>>,
) -> Result<Task, SplitLoaderError> {
    Ok(Box::pin(service.record_now(game, custom, done)))
}

#[wasm_split(practice, fallible)]
fn fold_new_games(service: PracticeService, course: Arc<Course>) -> Result<(), SplitLoaderError> {
    service.update(async move |db| db.catch_up_practice(&course).await);
    Ok(())
}

/// Runs `operation` on a connection of its own.
async fn open_and<T>(
    operation: impl AsyncFnOnce(&Db) -> Result<T, StorageError>,
) -> Result<T, StorageError> {
    operation(&Db::open().await?).await
}

/// The word list and the Chinese lists (the service worker's precache has them
/// offline), as a course.
async fn fetch_course() -> Result<Course, LoadError> {
    let words = WordList::parse(&fetch("words.txt").await?)
        .map_err(|e| LoadError::new("words.txt", e.to_string()))?;
    let zh = ZhLists::parse(&fetch("zh_chars.txt").await?, &fetch("zh_words.txt").await?)
        .map_err(|e| LoadError::new("zh_words.txt", e.to_string()))?;
    Ok(Course::new(&words, &zh))
}
