//! The page's session and the server's replay agree: on games played the way the page
//! plays them (all modes, IME compositions, Backspace and Ctrl+Backspace, a 60 s
//! `time` game), on logs recorded by earlier builds (fixtures), and on any sequence of
//! edits (property test).

use keydo_core::game::corpora::Corpora;
use keydo_core::game::input_log::InputLog;
use keydo_core::game::score::{self, Stats, TIME_MODE_DURATION_MS};
use keydo_core::verify::replay::{ReplayError, replay, replay_session};
use keydo_core::verify::simulate::{Typist, play};
use keydo_core::{Edit, Mode, Prompt, PromptId, Seed, Session};
use proptest::prelude::*;
use serde::Deserialize;

/// Everything the page shows of a game: the replay must reproduce all of it.
fn assert_same_game(page: &Session, replayed: &Session) {
    assert_eq!(replayed.result(), page.result());
    assert_eq!(replayed.samples(), page.samples());
    assert_eq!(replayed.caret(), page.caret());
    let states = |s: &Session| {
        (0..s.target().len())
            .map(|i| s.char_state(i))
            .collect::<Vec<_>>()
    };
    assert_eq!(states(replayed), states(page));
    assert_eq!(replayed.input_log(), page.input_log());
}

#[test]
fn simulated_players_of_every_mode_replay_exactly() {
    let corpora = Corpora::shipped();
    for mode in Mode::ALL {
        for (seed, wpm) in [(1, 40), (2, 120), (3, 250)] {
            let played = play(
                corpora,
                mode,
                Seed::new(seed).unwrap(),
                &Typist::steady_human(wpm),
            );
            let prompt = corpora.prompt(mode, &played.prompt).unwrap();
            let log = played.session.input_log();
            let replayed = replay_session(mode, &prompt, &log).unwrap();
            assert_same_game(&played.session, &replayed);
            let stats = played.session.result().unwrap();
            assert_eq!(
                replay(mode, &prompt, &log).unwrap().value,
                score::value(mode, &stats)
            );
            if mode == Mode::Time {
                assert_eq!(stats.duration_ms, TIME_MODE_DURATION_MS, "{wpm} WPM");
            }
        }
    }
}

/// Feeds `events` (edit or timer tick, at a page time) to a page session.
fn page_game(mode: Mode, text: &str, events: &[(u64, Option<Edit>)]) -> (Prompt, Session) {
    let prompt = Prompt::new(text).unwrap();
    let mut page = Session::new(mode, &prompt);
    for (at, event) in events {
        match event {
            Some(edit) => page.apply(edit.clone(), *at),
            None => page.tick(*at),
        }
    }
    (prompt, page)
}

fn commit(text: &str) -> Option<Edit> {
    Some(Edit::Commit(text.into()))
}

#[test]
fn a_scripted_english_game_with_corrections_replays_exactly() {
    let events = [
        (1_000, None),
        (1_180, commit("t")),
        (1_290, commit("h")),
        (1_400, commit("r")), // wrong
        (1_600, Some(Edit::Backspace)),
        (1_750, commit("e")),
        (1_900, commit(" ")),
        (2_000, commit("c")),
        (2_050, commit("q")), // wrong, then the whole word goes
        (2_100, None),
        (2_300, Some(Edit::DeleteWord)),
        (2_350, Some(Edit::DeleteWord)), // nothing left to delete: finished words stay
        (2_500, commit("cat sat")),      // an autocomplete-style multi-character commit
        (2_400, commit(" ")), // stamped before the last event: counted at the session's time
        (3_000, Some(Edit::CompositionStart)), // a mobile keyboard composing a word
        (3_050, Some(Edit::CompositionUpdate("o".into()))),
        (3_100, Some(Edit::CompositionUpdate("on".into()))),
        (3_200, Some(Edit::CompositionEnd("on".into()))),
        (6_000, None),
        (7_000, commit(" ")),
        (7_100, commit("m")),
        (7_200, commit("a")),
        (7_300, commit("t")),
        (9_000, commit("!")), // after the end: ignored, not logged
    ];
    let (prompt, page) = page_game(Mode::Words, "the cat sat on mat", &events);
    assert!(page.is_finished());
    let replayed = replay_session(Mode::Words, &prompt, &page.input_log()).unwrap();
    assert_same_game(&page, &replayed);
    assert_eq!(
        page.result(),
        Some(Stats {
            duration_ms: 6_120,
            correct_chars: 18,
            errors: 0,
            keystrokes: 21,
            correct_keystrokes: 19,
        })
    );
}

#[test]
fn a_scripted_ime_game_replays_exactly() {
    let mut events = vec![(500, None), (900, Some(Edit::CompositionStart))];
    for (i, text) in ["x", "xu", "xue", "xue e", "xue er"].iter().enumerate() {
        events.push((
            950 + 60 * i as u64,
            Some(Edit::CompositionUpdate((*text).into())),
        ));
    }
    events.extend([
        (1_400, Some(Edit::CompositionEnd("学儿".into()))), // 儿 is wrong
        (1_500, Some(Edit::Backspace)),
        (1_600, Some(Edit::CompositionStart)),
        (1_650, Some(Edit::CompositionUpdate("er".into()))),
        (1_800, Some(Edit::CompositionEnd("而时习之".into()))),
        (1_900, Some(Edit::CompositionStart)),
        (1_950, Some(Edit::CompositionUpdate("b".into()))),
        (2_000, Some(Edit::CompositionEnd(String::new()))), // cancelled
        (2_100, Some(Edit::DeleteWord)),                    // one 字 in zh
        (2_200, commit("之")),
        (2_600, commit("，不亦说乎")),
    ]);
    let (prompt, page) = page_game(Mode::Zh, "学而时习之，不亦说乎", &events);
    assert!(page.is_finished());
    let replayed = replay_session(Mode::Zh, &prompt, &page.input_log()).unwrap();
    assert_same_game(&page, &replayed);
    let timing = replay(Mode::Zh, &prompt, &page.input_log()).unwrap().timing;
    assert_eq!(timing.composition_keys, 5 + 1 + 1);
    assert_eq!(timing.composition_ms, 500 + 200 + 100);
}

/// A log recorded by an earlier build, with what it scored then.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Fixture {
    name: String,
    mode: Mode,
    prompt: PromptId,
    input: InputLog,
    stats: Stats,
    value: i64,
}

#[test]
fn logs_recorded_by_earlier_builds_still_replay_to_their_scores() {
    let fixtures: Vec<Fixture> =
        serde_json::from_str(include_str!("fixtures/recorded-games.json")).unwrap();
    assert!(
        Mode::ALL
            .iter()
            .all(|mode| fixtures.iter().any(|f| f.mode == *mode))
    );
    for fixture in fixtures {
        let prompt = Corpora::shipped()
            .prompt(fixture.mode, &fixture.prompt)
            .unwrap();
        let replayed = replay(fixture.mode, &prompt, &fixture.input).unwrap();
        assert_eq!(replayed.stats, fixture.stats, "{}", fixture.name);
        assert_eq!(replayed.value, fixture.value, "{}", fixture.name);
    }
}

/// An input event with the ms since the previous one: an edit or the timer.
fn event() -> impl Strategy<Value = (u64, Option<Edit>)> {
    let text = proptest::collection::vec(
        proptest::sample::select(vec!['a', 'b', ' ', '学', '而', 'Z']),
        0..4,
    )
    .prop_map(|chars| chars.into_iter().collect::<String>());
    let edit = prop_oneof![
        4 => text.clone().prop_map(|t| Some(Edit::Commit(t))),
        2 => Just(Some(Edit::Backspace)),
        1 => Just(Some(Edit::DeleteWord)),
        1 => Just(Some(Edit::CompositionStart)),
        1 => text.clone().prop_map(|t| Some(Edit::CompositionUpdate(t))),
        1 => text.prop_map(|t| Some(Edit::CompositionEnd(t))),
        1 => Just(None),
    ];
    // Mostly forward in time; sometimes stamped before the previous event.
    (
        prop_oneof![9 => 0..3_000u64, 1 => Just(0)],
        any::<bool>(),
        edit,
    )
        .prop_map(|(gap, early, edit)| (if early && gap == 0 { u64::MAX } else { gap }, edit))
}

proptest! {
    #[test]
    fn the_page_and_the_replay_agree_on_any_edits(
        mode in proptest::sample::select(Mode::ALL.to_vec()),
        text in proptest::sample::select(vec!["ab ba a b", "a", "学而 学", "ab", "ba ab ab ba ba"]),
        events in proptest::collection::vec(event(), 0..80),
        end_tick in any::<bool>(),
    ) {
        let mut now: u64 = 10_000;
        let mut timed = Vec::new();
        for (gap, edit) in events {
            // u64::MAX stands for an event stamped 50 ms before the previous one.
            let at = if gap == u64::MAX { now.saturating_sub(50) } else { now + gap };
            now = now.max(at);
            timed.push((at, edit));
        }
        if end_tick {
            timed.push((now + TIME_MODE_DURATION_MS + 1, None));
        }
        let (prompt, page) = page_game(mode, text, &timed);
        let log = page.input_log();
        let replayed = replay_session(mode, &prompt, &log).unwrap();
        prop_assert_eq!(replayed.input_log(), log.clone());
        match (page.result(), replay(mode, &prompt, &log)) {
            (Some(stats), Ok(scored)) => {
                prop_assert_eq!(scored.stats, stats);
                assert_same_game(&page, &replayed);
            }
            // A `time` game the page has not ended yet ends in the replay, 60 s on.
            (None, Ok(scored)) => {
                prop_assert_eq!(mode, Mode::Time);
                prop_assert!(!page.is_finished());
                prop_assert_eq!(scored.stats.duration_ms, TIME_MODE_DURATION_MS);
            }
            (None, Err(ReplayError::Unfinished { .. })) => {}
            (page_result, replay_result) => {
                prop_assert!(false, "page {:?}, replay {:?}", page_result, replay_result);
            }
        }
    }
}
