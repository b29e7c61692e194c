//! The flush against a scripted transport, on a real IndexedDB in headless Chromium
//! (wasm-bindgen-test): what it sends, what it records, when it renews and heals.
//!
//! The transport plays a small, honest server (one save per `Idempotency-Key`, the
//! best value per mode) and answers with scripted failures first where a test asks.

#![cfg(target_arch = "wasm32")]

#[path = "../../storage/tests/common/mod.rs"]
mod common;

use keydo_core::Mode;
use keydo_core::api::week::week_of;
use keydo_core::api::{Profile, ProfileAnswer, Save, SaveCreated, ScoreAck, ServerBest};
use keydo_core::game::board::Board;
use keydo_core::profile::{FieldValue, ProfileRecord, QueuedOperation, Theme};
use keydo_core::sync::classify::{ErrorCode, Failure};
use keydo_core::sync::coalesce::FlushKind;
use keydo_core::sync::heal::HEAL_INTERVAL_MS;
use keydo_core::sync::outbox::OutboxEntry;
use keydo_core::text::hash::TextHash;
use keydo_storage::{Credentials, Db};
use keydo_sync::{Transport, flush_with};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A request the transport saw.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    CreateSave(Uuid),
    Submit {
        token: Uuid,
        score_id: Uuid,
    },
    FetchSave(Uuid),
    /// A request of profile operations, by their keys.
    SendProfile(Vec<Uuid>),
}

#[derive(Default)]
struct Scripted {
    calls: RefCell<Vec<Call>>,
    /// Answers to give before the server's own, per endpoint.
    create_failures: RefCell<VecDeque<Failure>>,
    submit_failures: RefCell<VecDeque<Failure>>,
    fetch_failures: RefCell<VecDeque<Failure>>,
    /// The server: saves by idempotency key, known tokens, best value per mode.
    saves: RefCell<HashMap<Uuid, Credentials>>,
    known_tokens: RefCell<Vec<Uuid>>,
    bests: RefCell<HashMap<Mode, i64>>,
    /// Values above this are accepted but held for review (docs/replay.md).
    holds_above: RefCell<Option<i64>>,
    /// Failures of the next requests of profile operations (the first operation's).
    profile_failures: RefCell<VecDeque<Failure>>,
    /// The profile, and the answer kept per `Idempotency-Key`.
    profile: RefCell<Option<ProfileRecord>>,
    profile_answers: RefCell<HashMap<Uuid, ProfileAnswer>>,
    /// Lose the answer to the next request of profile operations after applying them.
    lose_next_profile_answer: RefCell<bool>,
    /// Restore the server from an empty backup after this many more scores.
    restore_after_scores: RefCell<Option<usize>>,
}

impl Scripted {
    fn calls(&self) -> Vec<Call> {
        self.calls.borrow().clone()
    }

    fn submitted(&self) -> Vec<Uuid> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::Submit { score_id, .. } => Some(score_id),
                _ => None,
            })
            .collect()
    }

    fn created_with(&self) -> Vec<Uuid> {
        self.calls()
            .into_iter()
            .filter_map(|c| match c {
                Call::CreateSave(key) => Some(key),
                _ => None,
            })
            .collect()
    }

    /// The server is restored from a backup that predates every save and score.
    fn restore_empty(&self) {
        self.known_tokens.borrow_mut().clear();
        self.bests.borrow_mut().clear();
    }
}

fn unknown_save() -> Failure {
    Failure::http(401, Some("UNAUTHORIZED"), None)
}

impl Transport for Scripted {
    async fn create_save(&self, idempotency_key: Uuid) -> Result<SaveCreated, Failure> {
        self.calls
            .borrow_mut()
            .push(Call::CreateSave(idempotency_key));
        if let Some(failure) = self.create_failures.borrow_mut().pop_front() {
            return Err(failure);
        }
        let save = *self
            .saves
            .borrow_mut()
            .entry(idempotency_key)
            .or_insert_with(|| Credentials {
                player_id: Uuid::new_v4(),
                token: Uuid::new_v4(),
            });
        self.known_tokens.borrow_mut().push(save.token);
        let record = self
            .profile
            .borrow_mut()
            .get_or_insert_with(|| ProfileRecord::new(Profile::named("Tester")))
            .clone();
        Ok(SaveCreated {
            player_id: save.player_id,
            token: save.token,
            version: record.version,
            profile: record.profile,
        })
    }

    async fn submit_score(
        &self,
        credentials: &Credentials,
        entry: &OutboxEntry,
    ) -> Result<ScoreAck, Failure> {
        self.calls.borrow_mut().push(Call::Submit {
            token: credentials.token,
            score_id: entry.score_id,
        });
        if let Some(failure) = self.submit_failures.borrow_mut().pop_front() {
            return Err(failure);
        }
        let restore_now = self
            .restore_after_scores
            .borrow_mut()
            .as_mut()
            .is_some_and(|n| {
                let now = *n == 0;
                *n = n.saturating_sub(1);
                now
            });
        if restore_now {
            self.restore_empty();
            *self.restore_after_scores.borrow_mut() = None;
        }
        if !self.known_tokens.borrow().contains(&credentials.token) {
            return Err(unknown_save());
        }
        let mut bests = self.bests.borrow_mut();
        let best = bests.entry(entry.mode).or_insert(entry.value);
        let improved = entry.value >= *best;
        *best = (*best).max(entry.value);
        Ok(ScoreAck {
            improved,
            best: *best,
            weekly_accepted: true,
            weekly_improved: improved,
            weekly_best: Some(*best),
            week: entry.week,
            held: self
                .holds_above
                .borrow()
                .is_some_and(|limit| entry.value > limit),
            code: Some(code_of(entry.score_id)),
            first_attempt: None,
        })
    }

    async fn fetch_save(&self, credentials: &Credentials) -> Result<Save, Failure> {
        self.calls
            .borrow_mut()
            .push(Call::FetchSave(credentials.token));
        if let Some(failure) = self.fetch_failures.borrow_mut().pop_front() {
            return Err(failure);
        }
        if !self.known_tokens.borrow().contains(&credentials.token) {
            return Err(unknown_save());
        }
        Ok(Save {
            player_id: credentials.player_id,
            version: 1,
            profile: Profile::named("Tester"),
            week: week_of(js_sys::Date::now() as i64),
            bests: self
                .bests
                .borrow()
                .iter()
                .map(|(&mode, &value)| ServerBest {
                    mode,
                    alltime: value,
                    weekly: Some(value),
                })
                .collect(),
            option_bests: Vec::new(),
        })
    }

    async fn send_profile(
        &self,
        credentials: &Credentials,
        operations: &[QueuedOperation],
    ) -> Result<Vec<ProfileAnswer>, Failure> {
        let keys = operations.iter().map(|op| op.operation_id).collect();
        self.calls.borrow_mut().push(Call::SendProfile(keys));
        if let Some(failure) = self.profile_failures.borrow_mut().pop_front() {
            return Err(failure);
        }
        if !self.known_tokens.borrow().contains(&credentials.token) {
            return Err(unknown_save());
        }
        // Applied in order, each once per key.
        let answers = operations
            .iter()
            .map(|operation| {
                self.profile_answers
                    .borrow_mut()
                    .entry(operation.operation_id)
                    .or_insert_with(|| {
                        let mut profile = self.profile.borrow_mut();
                        let resolution = profile.as_ref().unwrap().resolve(&operation.request());
                        *profile = Some(resolution.record.clone());
                        ProfileAnswer {
                            version: resolution.record.version,
                            profile: resolution.record.profile,
                            conflicts: resolution.conflicts,
                        }
                    })
                    .clone()
            })
            .collect();
        if self.lose_next_profile_answer.replace(false) {
            return Err(Failure::Network);
        }
        Ok(answers)
    }
}

/// The code the scripted server gives a result.
fn code_of(score_id: Uuid) -> String {
    score_id.simple().to_string()[..6].to_uppercase()
}

/// Records a game played now, as the app does.
async fn play(db: &Db, mode: Mode, correct_chars: u32) -> OutboxEntry {
    let profile = db.profile(0).await.unwrap().id;
    let entry = common::game(profile, mode, correct_chars, js_sys::Date::now() as u64);
    db.record_result(&entry, &[Board::Mode]).await.unwrap();
    entry
}

/// A fresh database with these games recorded.
async fn db_with(games: &[(Mode, u32)]) -> (Db, Vec<OutboxEntry>) {
    let (db, _) = common::fresh_db().await;
    let mut recorded = Vec::new();
    for &(mode, chars) in games {
        recorded.push(play(&db, mode, chars).await);
    }
    (db, recorded)
}

/// As [`db_with`], and the server already has these games (one flush made the save).
async fn delivered(games: &[(Mode, u32)]) -> (Db, Scripted, Vec<OutboxEntry>) {
    let (db, recorded) = db_with(games).await;
    let server = Scripted::default();
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.delivered, games.len());
    (db, server, recorded)
}

fn last_error(entry: &OutboxEntry) -> Option<&str> {
    entry.sync.last_error.as_ref().map(ErrorCode::as_str)
}

#[wasm_bindgen_test]
async fn a_game_waiting_for_several_boards_is_sent_once_and_its_code_kept() {
    let (db, _) = common::fresh_db().await;
    let profile = db.profile(0).await.unwrap().id;
    let text = TextHash::of("同一段文字");
    let game = common::game(profile, Mode::Zh, 90, js_sys::Date::now() as u64);
    let boards = [Board::TextFirst { text }, Board::TextBest { text }];
    db.record_result(&game, &boards).await.unwrap();
    assert_eq!(db.outbox().await.unwrap().len(), 2, "one entry per board");

    let server = Scripted::default();
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.delivered, 1);
    assert_eq!(server.submitted(), [game.score_id], "sent once");
    assert!(db.outbox().await.unwrap().is_empty());
    let verified = db.sync_status().await.unwrap().verified;
    assert_eq!(verified.len(), 1);
    assert_eq!(verified[0].score_id, game.score_id);
    assert_eq!(verified[0].code, code_of(game.score_id));
}

#[wasm_bindgen_test]
async fn delivers_everything_with_one_save_made_under_its_idempotency_key() {
    let (db, games) = db_with(&[(Mode::Words, 200), (Mode::Zh, 90)]).await;
    let server = Scripted::default();
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.delivered, 2);
    assert_eq!(report.next_retry_at, None);
    assert!(db.outbox().await.unwrap().is_empty());
    assert_eq!(server.created_with().len(), 1);
    assert_eq!(server.submitted().len(), 2);
    let saved = db.credentials().await.unwrap().unwrap();
    assert_eq!(
        server.saves.borrow().values().copied().collect::<Vec<_>>(),
        [saved]
    );
    // Acknowledged results are kept as delivered bests for healing.
    let delivered = db.delivered().await.unwrap();
    assert_eq!(delivered.alltime.len(), 2);
    assert!(
        games
            .iter()
            .all(|g| delivered.alltime.iter().any(|d| d.score_id == g.score_id))
    );
}

#[wasm_bindgen_test]
async fn results_the_server_holds_for_review_are_kept_to_show() {
    let (db, games) = db_with(&[(Mode::Words, 200), (Mode::Time, 900), (Mode::Zh, 95)]).await;
    let server = Scripted::default();
    *server.holds_above.borrow_mut() = Some(games[0].value);
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!((report.delivered, report.held), (3, 2));
    assert!(db.outbox().await.unwrap().is_empty(), "held is delivered");
    let held: Vec<Uuid> = db
        .sync_status()
        .await
        .unwrap()
        .held
        .iter()
        .map(|h| h.score_id)
        .collect();
    let expected: Vec<Uuid> = games
        .iter()
        .filter(|g| g.value > games[0].value)
        .rev()
        .map(|g| g.score_id)
        .collect();
    assert_eq!((held.len(), held), (2, expected), "newest first");
}

#[wasm_bindgen_test]
async fn a_lost_save_answer_is_resent_with_the_same_key() {
    let (db, _) = db_with(&[(Mode::Quote, 120)]).await;
    let server = Scripted::default();
    // The server made the save, but its answer was lost; then a proxy timed out.
    server
        .create_failures
        .borrow_mut()
        .extend([Failure::Network, Failure::http(504, None, None)]);
    for _ in 0..2 {
        flush_with(&db.name(), &server, FlushKind::Manual)
            .await
            .unwrap();
    }
    let [entry] = &db.outbox().await.unwrap()[..] else {
        panic!("still pending");
    };
    assert_eq!(last_error(entry), Some("HTTP_504"));
    let report = flush_with(&db.name(), &server, FlushKind::Manual)
        .await
        .unwrap();
    assert_eq!(report.delivered, 1);
    let keys = server.created_with();
    assert_eq!(keys.len(), 3);
    assert!(
        keys.iter().all(|k| *k == keys[0]),
        "one key for every attempt"
    );
    assert_eq!(server.saves.borrow().len(), 1, "one save");
}

#[wasm_bindgen_test]
async fn no_answer_ends_the_flush_and_a_reconnect_sends_at_once() {
    for unreachable in [Failure::Network, Failure::Timeout] {
        let (db, server, _) =
            delivered(&[(Mode::Words, 200), (Mode::Zh, 90), (Mode::Time, 300)]).await;
        // Two more games; then the network goes.
        play(&db, Mode::Words, 250).await;
        play(&db, Mode::Zh, 100).await;
        server
            .submit_failures
            .borrow_mut()
            .push_back(unreachable.clone());
        let before = server.submitted().len();
        let report = flush_with(&db.name(), &server, FlushKind::Automatic)
            .await
            .unwrap();
        assert_eq!(
            server.submitted().len(),
            before + 1,
            "the rest was not tried"
        );
        assert_eq!(report.retryable, 2);
        let outbox = db.outbox().await.unwrap();
        let code = unreachable.code();
        assert!(
            outbox.iter().all(|e| last_error(e) == Some(code.as_str())),
            "{outbox:?}"
        );
        // Still waiting out its backoff for an ordinary trigger...
        flush_with(&db.name(), &server, FlushKind::Automatic)
            .await
            .unwrap();
        assert_eq!(server.submitted().len(), before + 1);
        // ...but connectivity coming back sends everything at once.
        let report = flush_with(&db.name(), &server, FlushKind::Reconnect)
            .await
            .unwrap();
        assert_eq!(report.delivered, 2, "{unreachable:?}");
        assert!(db.outbox().await.unwrap().is_empty());
    }
}

#[wasm_bindgen_test]
async fn waits_the_server_asked_for_hold_on_reconnect() {
    let (db, _) = db_with(&[(Mode::Words, 200)]).await;
    let server = Scripted::default();
    server.submit_failures.borrow_mut().push_back(Failure::http(
        429,
        Some("RATE_LIMITED"),
        Some("60"),
    ));
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    let waiting_until = report.next_retry_at.unwrap();
    assert!(waiting_until >= js_sys::Date::now() as u64 + 59_000);
    flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!(server.submitted().len(), 1, "the 429's minute holds");
    assert_eq!(db.outbox().await.unwrap().len(), 1);
}

#[wasm_bindgen_test]
async fn only_the_apis_own_refusal_blocks() {
    let foreign = [
        Failure::http(403, None, None),
        Failure::http(404, None, None),
        Failure::http(422, None, None),
        Failure::http(401, None, None),
        Failure::InvalidResponse,
    ];
    for failure in foreign {
        let (db, _) = db_with(&[(Mode::Words, 200)]).await;
        let server = Scripted::default();
        server
            .submit_failures
            .borrow_mut()
            .push_back(failure.clone());
        let report = flush_with(&db.name(), &server, FlushKind::Automatic)
            .await
            .unwrap();
        assert_eq!((report.retryable, report.blocked), (1, 0), "{failure:?}");
        assert!(!report.renewed, "{failure:?}");
        let saved = db.credentials().await.unwrap();
        assert!(saved.is_some(), "a bare 401 never forgets the save");
        let [entry] = &db.outbox().await.unwrap()[..] else {
            panic!("kept");
        };
        assert!(!entry.sync.blocked);
        // The next attempt delivers it with the same save.
        let report = flush_with(&db.name(), &server, FlushKind::Manual)
            .await
            .unwrap();
        assert_eq!(report.delivered, 1, "{failure:?}");
        assert_eq!(db.credentials().await.unwrap(), saved);
        assert_eq!(server.created_with().len(), 1);
    }
}

#[wasm_bindgen_test]
async fn a_blocked_best_does_not_stop_a_lower_valid_game() {
    let (db, games) = db_with(&[(Mode::Quote, 200)]).await;
    let server = Scripted::default();
    server
        .submit_failures
        .borrow_mut()
        .push_back(Failure::http(422, Some("VALUE_MISMATCH"), None));
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.blocked, 1);
    let lower = play(&db, Mode::Quote, 150).await;
    let report = flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!(report.delivered, 1);
    assert_eq!(server.submitted(), [games[0].score_id, lower.score_id]);
    let [blocked] = &db.outbox().await.unwrap()[..] else {
        panic!("the blocked one stays");
    };
    assert_eq!(blocked.score_id, games[0].score_id);
    assert_eq!(report.next_retry_at, None, "nothing waits on a timer");
    let discarded = db.discard_blocked(blocked.score_id).await.unwrap().unwrap();
    assert_eq!(last_error(&discarded), Some("VALUE_MISMATCH"));
    assert!(db.outbox().await.unwrap().is_empty());
}

#[wasm_bindgen_test]
async fn a_restored_server_gets_a_new_save_and_every_best_back() {
    let (db, server, first) = delivered(&[(Mode::Words, 200), (Mode::Zh, 90)]).await;
    let old_save = db.credentials().await.unwrap().unwrap();
    let old_key = server.created_with()[0];

    // The server is restored from a backup older than the save; one more game.
    server.restore_empty();
    let time = play(&db, Mode::Time, 300).await;
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert!(report.renewed);
    assert_eq!(report.requeued, 2, "both earlier bests");
    assert_eq!(report.delivered, 3, "the new game and both earlier bests");
    let new_save = db.credentials().await.unwrap().unwrap();
    assert_ne!(new_save, old_save);
    let keys = server.created_with();
    assert_eq!(keys.len(), 2);
    assert_ne!(keys[1], old_key, "a renewed save gets a new key");
    assert!(db.outbox().await.unwrap().is_empty());
    let server_bests = server.bests.borrow().clone();
    for entry in first.iter().chain([&time]) {
        assert_eq!(server_bests.get(&entry.mode), Some(&entry.value));
    }
}

#[wasm_bindgen_test]
async fn scores_sent_before_a_renewal_in_the_same_flush_reach_the_new_save() {
    let (db, server, _) = delivered(&[(Mode::Words, 200)]).await;
    let quote = play(&db, Mode::Quote, 150).await;
    let zh = play(&db, Mode::Zh, 90).await;
    // The first score of the flush is acknowledged, then the server is restored.
    *server.restore_after_scores.borrow_mut() = Some(1);
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert!(report.renewed);
    assert!(db.outbox().await.unwrap().is_empty());
    let bests = server.bests.borrow().clone();
    assert_eq!(bests.len(), 3, "{bests:?}");
    for entry in [&quote, &zh] {
        assert_eq!(bests.get(&entry.mode), Some(&entry.value));
    }
    // Only what the new save lacked was sent again: words and the first score.
    assert_eq!(report.requeued, 2);
    assert_eq!(report.delivered, 4);
}

#[wasm_bindgen_test]
async fn a_second_unknown_save_in_one_flush_is_retried_not_renewed_again() {
    let (db, server, _) = delivered(&[(Mode::Words, 200)]).await;
    play(&db, Mode::Words, 250).await;
    server
        .submit_failures
        .borrow_mut()
        .extend([unknown_save(), unknown_save()]);
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert!(report.renewed);
    assert_eq!(server.created_with().len(), 2, "renewed once");
    let [entry] = &db.outbox().await.unwrap()[..] else {
        panic!("kept for a later attempt");
    };
    assert_eq!(last_error(entry), Some("UNAUTHORIZED"));
    assert!(!entry.sync.blocked);
}

#[wasm_bindgen_test]
async fn heals_once_a_day_from_the_servers_bests() {
    let (db, server, games) = delivered(&[(Mode::Words, 200), (Mode::Zh, 90)]).await;
    let created_at = db
        .healed_at()
        .await
        .unwrap()
        .expect("a new save counts as healed");
    // A day later, the server was restored from a backup that has the save but lost
    // the zh best.
    db.set_healed_at(created_at - HEAL_INTERVAL_MS)
        .await
        .unwrap();
    server.bests.borrow_mut().remove(&Mode::Zh);
    let report = flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!(report.requeued, 1);
    assert_eq!(report.delivered, 1);
    assert_eq!(server.submitted().last(), Some(&games[1].score_id));
    assert_eq!(server.bests.borrow().get(&Mode::Zh), Some(&games[1].value));
    assert!(db.healed_at().await.unwrap() > Some(created_at - HEAL_INTERVAL_MS));
    // Not again the same day.
    let fetches = |s: &Scripted| {
        s.calls()
            .iter()
            .filter(|c| matches!(c, Call::FetchSave(_)))
            .count()
    };
    assert_eq!(fetches(&server), 1);
    flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!(fetches(&server), 1);
}

#[wasm_bindgen_test]
async fn an_unreachable_heal_sends_nothing_and_tries_again_next_time() {
    let (db, server, _) = delivered(&[(Mode::Words, 200)]).await;
    let day_ago = js_sys::Date::now() as u64 - HEAL_INTERVAL_MS;
    db.set_healed_at(day_ago).await.unwrap();
    play(&db, Mode::Zh, 90).await;
    server
        .fetch_failures
        .borrow_mut()
        .push_back(Failure::Timeout);
    let report = flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!((report.delivered, report.retryable), (0, 1));
    assert_eq!(
        server.submitted().len(),
        1,
        "nothing sent after the timeout"
    );
    assert_eq!(db.healed_at().await.unwrap(), Some(day_ago));
    let report = flush_with(&db.name(), &server, FlushKind::Reconnect)
        .await
        .unwrap();
    assert_eq!(report.delivered, 1);
    assert!(db.healed_at().await.unwrap() > Some(day_ago));
}

/// Queues a profile change as the page does.
async fn change(db: &Db, value: FieldValue) -> Uuid {
    let id = Uuid::new_v4();
    let changes = std::iter::once(value).collect();
    let now = js_sys::Date::now() as u64;
    db.update_profile_queue(|queue| ((), queue.queue(&changes, id, now)))
        .await
        .unwrap();
    id
}

/// The requests of profile operations sent, by their operations' keys.
fn profile_requests(server: &Scripted) -> Vec<Vec<Uuid>> {
    server
        .calls()
        .into_iter()
        .filter_map(|c| match c {
            Call::SendProfile(keys) => Some(keys),
            _ => None,
        })
        .collect()
}

#[wasm_bindgen_test]
async fn profile_changes_go_in_order_after_the_save_is_made_and_a_lost_answer_applies_once() {
    let (db, _) = db_with(&[]).await;
    let first = change(&db, FieldValue::DisplayName("Ann".into())).await;
    let second = change(&db, FieldValue::Theme(Theme::Dark)).await;
    assert_eq!(
        db.profile_queue().await.unwrap().local().display_name,
        "Ann"
    );
    let server = Scripted::default();
    server
        .profile_failures
        .borrow_mut()
        .push_back(Failure::Network);
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.profile_sent, 0);
    assert!(
        report.next_retry_at.is_some(),
        "the head waits out a backoff"
    );
    assert_eq!(
        profile_requests(&server),
        [vec![first, second]],
        "one request, and the line waits with its head"
    );

    *server.lose_next_profile_answer.borrow_mut() = true;
    let report = flush_with(&db.name(), &server, FlushKind::Manual)
        .await
        .unwrap();
    assert_eq!(report.profile_sent, 0);
    let report = flush_with(&db.name(), &server, FlushKind::Manual)
        .await
        .unwrap();
    assert_eq!(report.profile_sent, 2);
    assert_eq!(profile_requests(&server), vec![vec![first, second]; 3]);
    let record = server.profile.borrow().clone().unwrap();
    assert_eq!(
        record.version, 3,
        "applied once each, the resend answered from the record"
    );
    assert_eq!(record.profile.display_name, "Ann");
    let queue = db.profile_queue().await.unwrap();
    assert_eq!(queue.queued().count(), 0);
    assert_eq!(queue.confirmed().version, 3);
    assert_eq!(queue.local(), record.profile);
}

#[wasm_bindgen_test]
async fn a_refused_profile_change_leaves_the_line_for_the_next() {
    let (db, _) = db_with(&[]).await;
    let refused = change(&db, FieldValue::DisplayName("Taken".into())).await;
    let next = change(&db, FieldValue::Sound(true)).await;
    let server = Scripted::default();
    server
        .profile_failures
        .borrow_mut()
        .push_back(Failure::http(422, Some("NAME_TAKEN"), None));
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!((report.profile_refused, report.profile_sent), (1, 1));
    assert_eq!(
        profile_requests(&server),
        [vec![refused, next], vec![next]],
        "the refusal is the first operation's; the next goes first in a request of its own"
    );
    let queue = db.profile_queue().await.unwrap();
    let kept: Vec<_> = queue
        .operations()
        .iter()
        .map(|op| (op.operation_id, op.state))
        .collect();
    assert_eq!(
        kept,
        [(refused, keydo_core::profile::OperationState::Failed)]
    );
    assert_eq!(
        queue.local().display_name,
        "Tester",
        "the refused name is not shown"
    );
    assert!(queue.local().settings.sound);
}

#[wasm_bindgen_test]
async fn a_long_line_goes_sixteen_operations_a_request_in_order() {
    let (db, _) = db_with(&[]).await;
    let mut made = Vec::new();
    for i in 0..20 {
        let value = if i % 2 == 0 {
            FieldValue::Theme([Theme::Dark, Theme::Light][i / 2 % 2])
        } else {
            FieldValue::Sound(i % 4 == 1)
        };
        made.push(change(&db, value).await);
    }
    let server = Scripted::default();
    let report = flush_with(&db.name(), &server, FlushKind::Automatic)
        .await
        .unwrap();
    assert_eq!(report.profile_sent, 20);
    let requests = profile_requests(&server);
    assert_eq!(requests, [made[..16].to_vec(), made[16..].to_vec()]);
    let record = server.profile.borrow().clone().unwrap();
    let queue = db.profile_queue().await.unwrap();
    assert_eq!((queue.in_line(), queue.queued().count()), (0, 0));
    assert_eq!(queue.confirmed().version, record.version);
    assert_eq!(queue.local(), record.profile);
}
