//! The operation outbox against a server that applies operations by
//! [`ProfileRecord::resolve`] and keeps an answer per `Idempotency-Key`: the nine
//! scenarios of docs/profile.md, and convergence of two devices under any interleaving.

use super::*;
use crate::sync::classify::{ErrorCode, Failure, Request};
use crate::sync::coalesce::FlushKind;
use crate::sync::outbox::SyncState;
use proptest::prelude::*;
use std::collections::{BTreeMap, HashMap};
use uuid::Uuid;

const T0: u64 = 1_796_097_600_000;
const AUTH: Request = Request::Authenticated {
    save_renewed: false,
};

/// The server's side: one record, and the answer kept under every key.
struct Server {
    record: ProfileRecord,
    answers: HashMap<Uuid, (ProfileOperation, Confirmed, Vec<Conflict>)>,
    /// Keys in the order their operations were first applied.
    applied: Vec<Uuid>,
}

impl Server {
    fn new() -> Server {
        Server {
            record: ProfileRecord::new(Profile::named("Ann")),
            answers: HashMap::new(),
            applied: Vec::new(),
        }
    }

    fn patch(&mut self, key: Uuid, operation: &ProfileOperation) -> (Confirmed, Vec<Conflict>) {
        if let Some((first, confirmed, conflicts)) = self.answers.get(&key) {
            assert_eq!(first, operation, "a key is only ever resent with its body");
            return (confirmed.clone(), conflicts.clone());
        }
        let resolution = self.record.resolve(operation);
        self.record = resolution.record;
        let confirmed = self.confirmed();
        self.answers.insert(
            key,
            (
                operation.clone(),
                confirmed.clone(),
                resolution.conflicts.clone(),
            ),
        );
        self.applied.push(key);
        (confirmed, resolution.conflicts)
    }

    fn confirmed(&self) -> Confirmed {
        Confirmed {
            version: self.record.version,
            profile: self.record.profile.clone(),
        }
    }

    fn reset_name(&mut self, name: &str, now_ms: u64) {
        self.record = self
            .record
            .set_by_operator(FieldValue::DisplayName(name.into()), now_ms);
    }
}

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delivery {
    Answered,
    /// Never reached the server.
    Cut,
    /// Applied, but the answer was lost on the way back.
    AnswerLost,
}

/// A device: its queue, and what it has stored (as IndexedDB would hold it).
struct Device {
    /// The queue as loaded after the last step, as storage loads it.
    queue: ProfileQueue,
    stored_ops: BTreeMap<u64, QueuedOperation>,
    stored_confirmed: Confirmed,
    stored_summary: LineSummary,
    next_id: u128,
}

impl Device {
    fn new(server: &Server, id_base: u128) -> Device {
        Device {
            queue: ProfileQueue::new(server.confirmed(), Vec::new(), LOADED_IN_LINE),
            stored_ops: BTreeMap::new(),
            stored_confirmed: server.confirmed(),
            stored_summary: LineSummary::default(),
            next_id: id_base,
        }
    }

    fn store(&mut self, writes: impl IntoIterator<Item = Write>) {
        for write in writes {
            match write {
                Write::Put(op) => {
                    self.stored_ops.insert(op.seq, op);
                }
                Write::Delete(seq) => {
                    self.stored_ops.remove(&seq);
                }
                Write::Confirmed(confirmed) => self.stored_confirmed = confirmed,
                Write::Summary(summary) => self.stored_summary = summary,
            }
        }
        self.queue = self.load();
    }

    /// The ends of the stored line, as storage loads them to queue a change.
    fn load(&self) -> ProfileQueue {
        self.load_holding(LOADED_IN_LINE)
    }

    /// The ends of the stored line, holding the first `holding` queued.
    fn load_holding(&self, holding: usize) -> ProfileQueue {
        ProfileQueue::loaded(
            self.stored_confirmed.clone(),
            self.stored_ops.values().cloned().collect(),
            self.stored_summary.clone(),
            holding,
        )
    }

    /// Sends the line as a flush does, up to [`OPERATIONS_PER_REQUEST`] operations a
    /// request: each step holds what [`held_for_sending`] asks, stores the answers to
    /// the request before and marks the next request's operations as sent. The answers
    /// to the requests numbered in `lost` never arrive. Returns the requests sent.
    fn flush_in_requests(&mut self, server: &mut Server, lost: &[usize]) -> usize {
        let mut answers: Vec<(Uuid, Confirmed, Vec<Conflict>)> = Vec::new();
        for request in 0..1_000 {
            self.queue = self.load_holding(held_for_sending(answers.len()));
            let mut writes = Vec::new();
            for (id, confirmed, conflicts) in answers.drain(..) {
                writes.extend(self.queue.applied(id, confirmed, conflicts));
            }
            let sent: Vec<QueuedOperation> = self
                .queue
                .next_due(T0, FlushKind::Manual, OPERATIONS_PER_REQUEST)
                .cloned()
                .collect();
            for operation in &sent {
                writes.extend(self.queue.sending(operation.operation_id));
            }
            self.store(writes);
            if sent.is_empty() {
                return request;
            }
            // The server applies a request's operations in order.
            let replies = sent.iter().map(|operation| {
                let (confirmed, conflicts) =
                    server.patch(operation.operation_id, &operation.request());
                (operation.operation_id, confirmed, conflicts)
            });
            let replies: Vec<_> = replies.collect();
            if !lost.contains(&request) {
                answers = replies;
            }
        }
        panic!("the line did not drain in 1,000 requests");
    }

    /// The ids still in line, as stored.
    fn line(&self) -> Vec<Uuid> {
        self.stored_ops
            .values()
            .filter(|op| op.is_queued())
            .map(|op| op.operation_id)
            .collect()
    }

    fn change(&mut self, value: FieldValue, now_ms: u64) -> Option<Uuid> {
        self.next_id += 1;
        let id = Uuid::from_u128(self.next_id);
        let writes = self
            .queue
            .queue(&std::iter::once(value).collect(), id, now_ms);
        if writes.is_empty() {
            return None;
        }
        self.store(writes);
        Some(id)
    }

    /// Loads the stored line again, checking that its summary is the one the whole
    /// line makes.
    fn restart(&mut self) {
        let whole = LineSummary::of(&self.stored_ops.values().cloned().collect::<Vec<_>>());
        let stored = &self.stored_summary;
        assert_eq!(
            (stored.in_line, &stored.values, &stored.set_by),
            (whole.in_line, &whole.values, &whole.set_by)
        );
        assert!(stored.last_seq >= whole.last_seq);
        self.queue = self.load();
    }

    /// Sends the head, if one is due; returns its key.
    fn send(&mut self, server: &mut Server, delivery: Delivery, now_ms: u64) -> Option<Uuid> {
        let head = self
            .queue
            .next_due(now_ms, FlushKind::Manual, 1)
            .next()?
            .clone();
        let write = self.queue.sending(head.operation_id);
        self.store(write);
        if delivery != Delivery::Cut {
            let (confirmed, conflicts) = server.patch(head.operation_id, &head.request());
            if delivery == Delivery::Answered {
                let writes = self.queue.applied(head.operation_id, confirmed, conflicts);
                self.store(writes);
                return Some(head.operation_id);
            }
        }
        let (_, writes) = self
            .queue
            .failed(head.operation_id, AUTH, &Failure::Network, now_ms, 0.5)
            .unwrap();
        self.store(writes);
        Some(head.operation_id)
    }

    fn drain(&mut self, server: &mut Server) {
        for _ in 0..100 {
            if self.send(server, Delivery::Answered, T0).is_none() {
                return;
            }
        }
        panic!("the queue did not drain in 100 sends");
    }

    fn refresh(&mut self, server: &Server) {
        let writes = self.queue.confirm(server.confirmed());
        self.store(writes);
    }

    fn local(&self) -> Profile {
        self.queue.local()
    }

    fn lost_conflicts(&self) -> Vec<Conflict> {
        self.queue
            .operations()
            .iter()
            .filter(|op| op.state == OperationState::Conflict)
            .flat_map(|op| op.conflicts.clone())
            .collect()
    }
}

fn name(text: &str) -> FieldValue {
    FieldValue::DisplayName(text.into())
}

#[test]
fn operations_reach_the_server_in_the_order_they_were_made() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x100);
    let ids = [
        device.change(name("Bo"), T0 + 1).unwrap(),
        device
            .change(FieldValue::Theme(Theme::Dark), T0 + 2)
            .unwrap(),
        device.change(name("Cy"), T0 + 3).unwrap(),
    ];
    assert_eq!(
        device.local().display_name,
        "Cy",
        "shown at once, before any send"
    );
    device.drain(&mut server);
    assert_eq!(server.applied, ids);
    assert_eq!(server.record.profile.display_name, "Cy");
    assert_eq!(server.record.profile.settings.theme, Theme::Dark);
    assert_eq!(server.record.version, 4);
    assert!(device.stored_ops.is_empty());
    assert_eq!(device.local(), server.record.profile);
}

#[test]
fn a_restart_keeps_the_line_its_order_and_its_keys() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x200);
    let first = device.change(name("Bo"), T0 + 1).unwrap();
    let second = device.change(FieldValue::FontSize(26), T0 + 2).unwrap();
    let before = device.local();
    device.restart();
    assert_eq!(device.local(), before);
    let keys: Vec<Uuid> = device.line();
    assert_eq!(keys, [first, second]);
    device.drain(&mut server);
    assert_eq!(server.applied, [first, second]);
    assert_eq!(server.record.profile, before);
}

#[test]
fn a_cut_network_stops_the_line_and_it_resumes_with_the_same_keys() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x300);
    let first = device.change(name("Bo"), T0 + 1).unwrap();
    let second = device.change(FieldValue::Sound(true), T0 + 2).unwrap();
    assert_eq!(device.send(&mut server, Delivery::Cut, T0 + 3), Some(first));
    let head = device.queue.queued().next().unwrap();
    assert_eq!((head.operation_id, head.sync.attempts), (first, 1));
    assert_eq!(head.state, OperationState::Pending);
    assert!(
        device
            .queue
            .next_due(T0 + 3, FlushKind::Automatic, OPERATIONS_PER_REQUEST)
            .next()
            .is_none(),
        "the head waits out its backoff, and the line behind it waits too"
    );
    device.restart();
    device.drain(&mut server);
    assert_eq!(server.applied, [first, second]);
    assert_eq!(server.record.version, 3);
}

#[test]
fn a_lost_answer_is_resent_and_applied_once() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x400);
    let id = device.change(name("Bo"), T0 + 1).unwrap();
    device.send(&mut server, Delivery::AnswerLost, T0 + 2);
    assert_eq!(server.record.version, 2);
    // The resend gets the stored answer: no second application, no conflict with itself.
    device.drain(&mut server);
    assert_eq!(server.applied, [id]);
    assert_eq!(server.record.version, 2);
    assert!(device.lost_conflicts().is_empty());
    assert_eq!(device.queue.confirmed().version, 2);
    assert_eq!(device.local().display_name, "Bo");
}

#[test]
fn an_equal_time_keeps_the_servers_name() {
    let mut server = Server::new();
    let mut phone = Device::new(&server, 0x500);
    let mut laptop = Device::new(&server, 0x510);
    phone.change(name("Phone"), T0 + 100).unwrap();
    laptop.change(name("Laptop"), T0 + 100).unwrap();
    phone.drain(&mut server);
    laptop.drain(&mut server);
    assert_eq!(server.record.profile.display_name, "Phone");
    let lost = laptop.lost_conflicts();
    assert_eq!(
        lost,
        [Conflict {
            field: Field::DisplayName,
            policy: Policy::ClientWinsIfNewer,
            kept: Kept::Server,
            by: Author::Player,
        }]
    );
    assert_eq!(laptop.local().display_name, "Phone");
    // One millisecond later is strictly newer, and wins.
    let mut tablet = Device::new(&Server::new(), 0x520);
    tablet.change(name("Tablet"), T0 + 101).unwrap();
    tablet.drain(&mut server);
    assert_eq!(server.record.profile.display_name, "Tablet");
    assert!(tablet.lost_conflicts().is_empty());
}

#[test]
fn a_change_queued_behind_a_sent_one_goes_on_the_answered_version() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x600);
    let first = device.change(name("Bo"), T0 + 1).unwrap();
    // The first is on its way when the player changes the name again.
    let head = device
        .queue
        .next_due(T0 + 2, FlushKind::Automatic, 1)
        .next()
        .unwrap()
        .clone();
    let sending = device.queue.sending(first);
    device.store(sending);
    let second = device.change(name("Cy"), T0 + 3).unwrap();
    let queued_second = device.queue.queued().nth(1).unwrap().clone();
    assert_eq!(queued_second.base.display_name.as_deref(), Some("Bo"));
    assert_eq!(
        queued_second.base_version, 1,
        "made before the first was answered"
    );
    let (confirmed, conflicts) = server.patch(first, &head.request());
    let writes = device.queue.applied(first, confirmed, conflicts);
    device.store(writes);
    let rebased = device.queue.queued().next().unwrap();
    assert_eq!((rebased.operation_id, rebased.base_version), (second, 2));
    device.drain(&mut server);
    assert_eq!(server.record.profile.display_name, "Cy");
    assert_eq!(server.record.version, 3);
    assert!(device.lost_conflicts().is_empty());
}

#[test]
fn settings_changed_on_two_devices_merge_field_by_field() {
    let mut server = Server::new();
    let mut phone = Device::new(&server, 0x700);
    let mut laptop = Device::new(&server, 0x710);
    phone
        .change(FieldValue::Theme(Theme::Dark), T0 + 50)
        .unwrap();
    laptop.change(FieldValue::FontSize(28), T0 + 10).unwrap();
    laptop
        .change(FieldValue::InputMethod("小鹤双拼".into()), T0 + 11)
        .unwrap();
    phone.drain(&mut server);
    laptop.drain(&mut server);
    // The laptop's older changes still apply: the phone never touched those fields.
    let settings = &server.record.profile.settings;
    assert_eq!(
        (
            settings.theme,
            settings.font_size,
            settings.input_method.as_str()
        ),
        (Theme::Dark, 28, "小鹤双拼")
    );
    assert!(phone.lost_conflicts().is_empty() && laptop.lost_conflicts().is_empty());
    phone.refresh(&server);
    assert_eq!(phone.local(), laptop.local());
    assert_eq!(phone.local(), server.record.profile);
}

#[test]
fn a_setting_both_devices_changed_goes_to_the_later_change() {
    for phone_first in [true, false] {
        let mut server = Server::new();
        let mut phone = Device::new(&server, 0x800);
        let mut laptop = Device::new(&server, 0x810);
        phone
            .change(FieldValue::Caret(Caret::Block), T0 + 20)
            .unwrap();
        laptop
            .change(FieldValue::Caret(Caret::Underline), T0 + 30)
            .unwrap();
        if phone_first {
            phone.drain(&mut server);
            laptop.drain(&mut server);
        } else {
            laptop.drain(&mut server);
            phone.drain(&mut server);
        }
        assert_eq!(server.record.profile.settings.caret, Caret::Underline);
        assert!(
            laptop.lost_conflicts().is_empty(),
            "the later change never loses"
        );
        let phone_lost = phone.lost_conflicts();
        if phone_first {
            // Overwritten by a later change, but never in the way of one.
            assert!(phone_lost.is_empty());
        } else {
            assert_eq!(
                phone_lost,
                [Conflict {
                    field: Field::Caret,
                    policy: Policy::MergeDisjoint,
                    kept: Kept::Server,
                    by: Author::Player,
                }]
            );
        }
        phone.refresh(&server);
        assert_eq!(phone.local().settings.caret, Caret::Underline);
    }
}

#[test]
fn a_moderators_name_reset_wins_and_is_reported() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x900);
    device.change(name("Rude"), T0 + 1).unwrap();
    device.drain(&mut server);
    // Offline, the player changes the name again; meanwhile a moderator resets it.
    device.change(name("Ruder"), T0 + 5_000).unwrap();
    server.reset_name("Player 4821", T0 + 2_000);
    device.drain(&mut server);
    assert_eq!(server.record.profile.display_name, "Player 4821");
    assert_eq!(
        device.lost_conflicts(),
        [Conflict {
            field: Field::DisplayName,
            policy: Policy::ServerWins,
            kept: Kept::Server,
            by: Author::Operator,
        }]
    );
    assert_eq!(device.local().display_name, "Player 4821");
    // Having seen the reset, the player may choose again.
    let conflict = device.queue.operations()[0].operation_id;
    let write = device.queue.dismiss(conflict).unwrap();
    device.store([write]);
    device.change(name("Polite"), T0 + 6_000).unwrap();
    device.drain(&mut server);
    assert_eq!(server.record.profile.display_name, "Polite");
    assert!(device.stored_ops.is_empty());
}

#[test]
fn a_change_back_to_the_confirmed_value_is_still_queued_and_a_no_op_is_not() {
    let server = Server::new();
    let mut device = Device::new(&server, 0xA00);
    assert!(device.change(name("Ann"), T0).is_none(), "already the name");
    device.change(name("Bo"), T0 + 1).unwrap();
    assert!(device.change(name("Ann"), T0 + 2).is_some());
    assert_eq!(device.queue.in_line(), 2);
}

#[test]
fn a_device_that_changes_save_adopts_its_profile_and_keeps_its_line() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0xB00);
    device.change(name("Bo"), T0 + 1).unwrap();
    device.drain(&mut server);
    device.change(FieldValue::Sound(true), T0 + 2).unwrap();
    // Linked to another player, whose profile is at version 1.
    let mut other = Server::new();
    other.reset_name("Dee", T0);
    other.record.version = 1;
    let writes = device.queue.adopt(other.confirmed());
    assert!(writes.contains(&Write::Confirmed(other.confirmed())));
    device.store(writes);
    let queued = device.queue.queued().next().unwrap();
    assert_eq!(
        queued.base_version, 1,
        "rebased: its base holds on the new save"
    );
    assert_eq!(device.local().display_name, "Dee");
    assert!(device.local().settings.sound);
    device.drain(&mut other);
    assert!(other.record.profile.settings.sound);
}

/// One step of two devices' lives.
#[derive(Debug, Clone)]
enum Step {
    Change {
        device: usize,
        value: FieldValue,
        at: u64,
    },
    Send {
        device: usize,
        delivery: Delivery,
    },
    Restart {
        device: usize,
    },
    Refresh {
        device: usize,
    },
}

fn field_value() -> impl Strategy<Value = FieldValue> {
    prop_oneof![
        prop::sample::select(vec!["Ann", "Bo", "Cy"]).prop_map(name),
        prop::sample::select(Theme::ALL.to_vec()).prop_map(FieldValue::Theme),
        prop::sample::select(Caret::ALL.to_vec()).prop_map(FieldValue::Caret),
        any::<bool>().prop_map(FieldValue::Sound),
        (14u8..=16).prop_map(FieldValue::FontSize),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let device = 0usize..2;
    prop_oneof![
        3 => (device.clone(), field_value(), 0u64..20)
            .prop_map(|(device, value, at)| Step::Change { device, value, at: T0 + at }),
        3 => (device.clone(), prop::sample::select(vec![
                Delivery::Answered, Delivery::Cut, Delivery::AnswerLost,
            ]))
            .prop_map(|(device, delivery)| Step::Send { device, delivery }),
        1 => device.clone().prop_map(|device| Step::Restart { device }),
        1 => device.prop_map(|device| Step::Refresh { device }),
    ]
}

/// Plays `steps`, then lets both devices send everything and read the server.
fn play(steps: &[Step]) -> (Server, [Device; 2]) {
    let mut server = Server::new();
    let mut devices = [
        Device::new(&server, 0x1_0000),
        Device::new(&server, 0x2_0000),
    ];
    for step in steps {
        match step.clone() {
            Step::Change { device, value, at } => {
                devices[device].change(value, at);
            }
            Step::Send { device, delivery } => {
                devices[device].send(&mut server, delivery, T0);
            }
            Step::Restart { device } => devices[device].restart(),
            Step::Refresh { device } => devices[device].refresh(&server),
        }
    }
    for device in &mut devices {
        device.drain(&mut server);
    }
    for device in &mut devices {
        device.refresh(&server);
    }
    (server, devices)
}

proptest! {
    #[test]
    fn two_devices_converge_under_any_interleaving(steps in prop::collection::vec(step(), 0..40)) {
        let (server, devices) = play(&steps);
        for device in &devices {
            prop_assert_eq!(device.queue.in_line(), 0);
            prop_assert!(device.line().is_empty());
            prop_assert_eq!(&device.local(), &server.record.profile);
            prop_assert_eq!(device.queue.confirmed().version, server.record.version);
        }
        // Exactly once: every key applied at most once, and every queued change was.
        let mut keys = server.applied.clone();
        keys.sort();
        keys.dedup();
        prop_assert_eq!(keys.len(), server.applied.len());
        let queued = devices.iter().map(|d| d.next_id & 0xFFFF).sum::<u128>() as usize;
        prop_assert!(server.applied.len() <= queued);
        prop_assert!(server.record.version <= 1 + server.applied.len() as i64);
    }

    #[test]
    fn changes_to_different_fields_all_land(
        a in prop::collection::vec((prop::sample::select(Theme::ALL.to_vec()), 0u64..20), 1..6),
        b in prop::collection::vec((14u8..=32, 0u64..20), 1..6),
        order in prop::collection::vec(any::<bool>(), 0..24),
    ) {
        let mut server = Server::new();
        let mut phone = Device::new(&server, 0x3_0000);
        let mut laptop = Device::new(&server, 0x4_0000);
        for &(theme, at) in &a {
            phone.change(FieldValue::Theme(theme), T0 + at);
        }
        for &(size, at) in &b {
            laptop.change(FieldValue::FontSize(size), T0 + at);
        }
        for phone_next in order {
            let device = if phone_next { &mut phone } else { &mut laptop };
            device.send(&mut server, Delivery::Answered, T0);
        }
        phone.drain(&mut server);
        laptop.drain(&mut server);
        let settings = &server.record.profile.settings;
        prop_assert_eq!(settings.theme, a.last().unwrap().0);
        prop_assert_eq!(settings.font_size, b.last().unwrap().0);
        prop_assert!(phone.lost_conflicts().is_empty() && laptop.lost_conflicts().is_empty());
    }
}

#[test]
fn a_step_holds_the_ends_of_a_long_line_and_its_summary_the_rest() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0xC00);
    let themes = [Theme::Dark, Theme::Light];
    for i in 0..40 {
        device
            .change(FieldValue::Theme(themes[i % 2]), T0 + i as u64)
            .unwrap();
    }
    device.change(name("Bo"), T0 + 40).unwrap();
    assert_eq!(device.queue.in_line(), 41);
    assert_eq!(device.queue.queued().count(), LOADED_IN_LINE);
    assert_eq!(device.local().settings.theme, Theme::Light);
    assert_eq!(device.local().display_name, "Bo");
    device.restart();

    // The head is answered: one step writes a handful of records, whatever the length.
    let head = device
        .queue
        .next_due(T0, FlushKind::Manual, 1)
        .next()
        .unwrap()
        .clone();
    let (confirmed, conflicts) = server.patch(head.operation_id, &head.request());
    let writes = device
        .queue
        .applied(head.operation_id, confirmed, conflicts);
    assert!(writes.len() <= 3 + LOADED_IN_LINE, "{writes:?}");
    device.store(writes);
    assert_eq!(device.queue.in_line(), 40);
    assert_eq!(
        device.local().settings.theme,
        Theme::Light,
        "a later change of the field still shows"
    );
    device.restart();
    device.drain(&mut server);
    assert_eq!(server.applied.len(), 41);
    assert_eq!(device.local(), server.record.profile);
    assert_eq!(device.queue.summary().last_seq, 41, "places are not reused");
}

#[test]
fn a_summary_left_behind_by_an_earlier_release_is_told_apart() {
    let server = Server::new();
    let mut device = Device::new(&server, 0xD00);
    device.change(name("Bo"), T0).unwrap();
    device.change(FieldValue::Sound(true), T0 + 1).unwrap();
    device.change(name("Cy"), T0 + 2).unwrap();
    let held: Vec<QueuedOperation> = device.stored_ops.values().cloned().collect();
    let summary = device.stored_summary.clone();
    assert!(summary.holds_for(&held[..2], Some(3), LOADED_IN_LINE));
    assert!(
        summary.holds_for(&held, Some(3), LOADED_IN_LINE),
        "a page may hold more of the line"
    );
    // An earlier release queued a fourth change without a summary...
    assert!(!summary.holds_for(&held[..2], Some(4), LOADED_IN_LINE));
    // ...or answered the head and the one after it.
    assert!(!summary.holds_for(&held[2..], Some(3), LOADED_IN_LINE));
}

#[test]
fn a_line_goes_a_request_of_operations_at_a_time_in_order_and_once() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0xE00);
    let themes = [Theme::Dark, Theme::Light];
    let mut queued = Vec::new();
    for i in 0..40 {
        let value = match i % 3 {
            0 => FieldValue::Theme(themes[i % 2]),
            1 => FieldValue::FontSize(16 + 2 * (i as u8 % 4)),
            _ => name(&format!("Bo{i}")),
        };
        queued.push(device.change(value, T0 + i as u64).unwrap());
    }
    device.restart();
    // 40 operations are three requests; the answer to the second is lost, so it goes
    // again and is answered from the server's records.
    let requests = device.flush_in_requests(&mut server, &[1]);
    assert_eq!(requests, 4);
    assert_eq!(
        server.applied, queued,
        "each applied once, in the order made"
    );
    assert_eq!(device.queue.in_line(), 0);
    assert_eq!(device.local(), server.record.profile);
    assert_eq!(device.queue.confirmed().version, server.record.version);
    assert!(device.lost_conflicts().is_empty());
}

#[test]
fn a_waiting_head_holds_back_the_whole_request() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0xF00);
    let first = device.change(name("Bo"), T0).unwrap();
    device.change(FieldValue::Sound(true), T0 + 1).unwrap();
    assert_eq!(device.send(&mut server, Delivery::Cut, T0 + 2), Some(first));
    device.queue = device.load_holding(held_for_sending(0));
    let due: Vec<Uuid> = device
        .queue
        .next_due(T0 + 2, FlushKind::Automatic, OPERATIONS_PER_REQUEST)
        .map(|operation| operation.operation_id)
        .collect();
    assert!(due.is_empty(), "{due:?}");
    let due = device
        .queue
        .next_due(T0 + 2, FlushKind::Manual, OPERATIONS_PER_REQUEST)
        .count();
    assert_eq!(
        due, 2,
        "a retry sends the head and the one after it together"
    );
}

#[test]
fn coalesced_writes_leave_the_store_as_all_of_them_do() {
    let mut server = Server::new();
    let mut device = Device::new(&server, 0x1100);
    for i in 0..12 {
        let theme = [Theme::Dark, Theme::Light][i % 2];
        device
            .change(FieldValue::Theme(theme), T0 + i as u64)
            .unwrap();
    }
    device.queue = device.load_holding(held_for_sending(0));
    let sent: Vec<QueuedOperation> = device
        .queue
        .next_due(T0, FlushKind::Manual, OPERATIONS_PER_REQUEST)
        .cloned()
        .collect();
    let mut writes = Vec::new();
    for operation in &sent {
        writes.extend(device.queue.sending(operation.operation_id));
    }
    for operation in &sent[..8] {
        let (confirmed, conflicts) = server.patch(operation.operation_id, &operation.request());
        writes.extend(
            device
                .queue
                .applied(operation.operation_id, confirmed, conflicts),
        );
    }
    let mut each = (
        device.stored_ops.clone(),
        device.stored_confirmed.clone(),
        device.stored_summary.clone(),
    );
    let coalesced = Write::coalesced(writes.clone());
    assert!(
        coalesced.len() < writes.len() / 2,
        "{} of {}",
        coalesced.len(),
        writes.len()
    );
    device.store(coalesced);
    for write in writes {
        match write {
            Write::Put(op) => drop(each.0.insert(op.seq, op)),
            Write::Delete(seq) => drop(each.0.remove(&seq)),
            Write::Confirmed(confirmed) => each.1 = confirmed,
            Write::Summary(summary) => each.2 = summary,
        }
    }
    assert_eq!(device.stored_ops, each.0);
    assert_eq!(device.stored_confirmed, each.1);
    assert_eq!(device.stored_summary, each.2);
    assert_eq!(device.queue.in_line(), 4);
}

/// An operation is stored as one object, its sync state's fields beside its own, as
/// it always was: what an older page stored reads back, and is written the same.
#[test]
fn a_queued_operation_is_stored_as_one_object() {
    let stored = serde_json::json!({
        "operationId": "7f0b3c1e-2d4a-4b5c-8d6e-9f0a1b2c3d4e",
        "seq": 7,
        "payload": {"displayName": "Ann", "settings": {"fontSize": 24}},
        "baseVersion": 3,
        "base": {"displayName": "An"},
        "createdAt": T0,
        "state": "pending",
        "attempts": 2,
        "nextAttemptAt": T0 + 4_000,
        "lastError": "NETWORK",
        "blocked": false,
    });
    let operation: QueuedOperation = serde_json::from_value(stored.clone()).unwrap();
    assert_eq!(operation.seq, 7);
    assert_eq!(
        operation.payload.get(Field::FontSize),
        Some(FieldValue::FontSize(24))
    );
    assert_eq!(
        operation.sync,
        SyncState {
            attempts: 2,
            next_attempt_at: T0 + 4_000,
            last_error: ErrorCode::new("NETWORK"),
            blocked: false,
        }
    );
    assert!(operation.conflicts.is_empty());
    assert_eq!(serde_json::to_value(&operation).unwrap(), stored);
    // A sync state's field is not optional.
    let mut without = stored;
    without.as_object_mut().unwrap().remove("attempts");
    assert!(serde_json::from_value::<QueuedOperation>(without).is_err());
}
