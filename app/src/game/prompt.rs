//! The prompt on screen, a few whole lines at a time: the caret's line and its
//! neighbours, one span per character, each with its own signal, so a keystroke
//! re-renders the one or two spans it touches. The lines come from
//! [`keydo_core::game::lines`], with the columns measured from the prompt's width and a
//! probe of its font (again whenever its size changes); the window moves a line at a
//! time, so no line is ever cut in half, and a prompt of thousands of characters costs
//! a few hundred elements rather than thousands.
//!
//! The element's text is still exactly the prompt (tests read it): the lines before and
//! after the window are kept as two hidden text nodes. The caret is a class on the
//! character it stands before, drawn by CSS, never an inserted node.

use keydo_core::game::lines::{line_of, line_starts};
use keydo_core::game::mode::Language;
use keydo_core::{CharState, Session};
use leptos::html::{Div, Span};
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;

/// How a character is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Pending,
    /// Pending, with the caret before it.
    Current,
    Correct,
    Incorrect,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Pending => "ch",
            Mark::Current => "ch current",
            Mark::Correct => "ch correct",
            Mark::Incorrect => "ch incorrect",
        }
    }
}

/// One signal per prompt character.
#[derive(Clone, Copy)]
pub struct Marks(StoredValue<Vec<RwSignal<Mark>>>);

impl Marks {
    pub fn new(session: &Session) -> Marks {
        let marks = Marks(StoredValue::new(
            (0..session.target().len())
                .map(|_| RwSignal::new(Mark::Pending))
                .collect(),
        ));
        marks.sync(session, 0);
        marks
    }

    /// Brings the marks up to date after an edit that moved the caret from `old_caret`:
    /// only characters between the two carets can have changed.
    pub fn sync(&self, session: &Session, old_caret: usize) {
        let caret = session.caret();
        self.0.with_value(|marks| {
            let touched = old_caret.min(caret)..=old_caret.max(caret);
            for index in touched.filter(|&i| i < marks.len()) {
                let mark = match session.char_state(index) {
                    CharState::Pending if index == caret => Mark::Current,
                    CharState::Pending => Mark::Pending,
                    CharState::Correct => Mark::Correct,
                    CharState::Incorrect => Mark::Incorrect,
                };
                if marks[index].get_untracked() != mark {
                    marks[index].set(mark);
                }
            }
        });
    }
}

/// Lines shown at once; the caret's line is the first of them, then the second.
const VISIBLE_LINES: usize = 3;
/// Characters in the font probe: enough for a sub-pixel-accurate width.
const PROBE_CHARS: usize = 10;

/// The prompt's characters with their marks, the caret at `caret` (in its dark half
/// while `caret_off`). A click focuses the typing field.
#[component]
pub fn PromptView(
    text: Vec<char>,
    marks: Marks,
    caret: ReadSignal<usize>,
    caret_off: ReadSignal<bool>,
    #[prop(into)] composing: Signal<bool>,
    language: Language,
    on_click: impl Fn() + 'static,
) -> impl IntoView {
    let text: Arc<[char]> = text.into();
    let prompt_ref = NodeRef::<Div>::new();
    let probe_ref = NodeRef::<Span>::new();
    let columns = fitting_columns(prompt_ref, probe_ref);

    // Where each line starts, once the columns are known: broken again only when they
    // change, never per keystroke.
    let starts = {
        let text = Arc::clone(&text);
        Memo::new(move |_| {
            columns
                .get()
                .map(|columns| line_starts(&text, columns, language))
        })
    };
    // The visible lines as character ranges: a new value only when the caret changes
    // line (or the lines change), which is when the window is redrawn.
    let window = {
        let len = text.len();
        Memo::new(move |_| {
            starts.with(|starts| {
                let Some(starts) = starts else {
                    return Vec::new();
                };
                let first = line_of(starts, caret.get()).saturating_sub(1);
                let last = (first + VISIBLE_LINES).min(starts.len());
                (first..last)
                    .map(|line| (starts[line], starts.get(line + 1).copied().unwrap_or(len)))
                    .collect::<Vec<_>>()
            })
        })
    };
    // The text before the window (none before the lines are known), and after it (all).
    let hidden = |before: bool| {
        let text = Arc::clone(&text);
        move || {
            let (from, to) = window.with(|lines| match (before, lines.first(), lines.last()) {
                (true, first, _) => (0, first.map_or(0, |line| line.0)),
                (false, _, last) => (last.map_or(0, |line| line.1), text.len()),
            });
            text[from..to].iter().collect::<String>()
        }
    };
    let (before, after) = (hidden(true), hidden(false));
    let line_view = move |(from, to): (usize, usize)| {
        let chars = (from..to)
            .map(|index| {
                let mark = marks.0.with_value(|m| m[index]);
                let ch = text[index];
                view! { <span class=move || mark.get().class()>{ch}</span> }
            })
            .collect_view();
        view! { <div class="line">{chars}</div> }
    };
    let probe: String = match language {
        Language::English => "0".repeat(PROBE_CHARS),
        Language::Chinese => "字".repeat(PROBE_CHARS),
    };
    view! {
        <div class="prompt-box" on:click=move |_| on_click()>
            <div
                node_ref=prompt_ref
                class="prompt"
                class:composing=move || composing.get()
                class:caret-off=move || caret_off.get()
                data-testid="prompt"
                lang=language.tag()
                id="prompt"
            >
                <span hidden>{before}</span>
                {move || window.get().into_iter().map(&line_view).collect_view()}
                <span hidden>{after}</span>
            </div>
            <span class="probe" aria-hidden="true" node_ref=probe_ref>{probe}</span>
        </div>
    }
}

/// How many probe characters fit across the prompt, measured when it appears and
/// whenever its size changes (a resize, a scrollbar coming or going).
fn fitting_columns(
    prompt_ref: NodeRef<Div>,
    probe_ref: NodeRef<Span>,
) -> ReadSignal<Option<usize>> {
    let (columns, set_columns) = signal(None::<usize>);
    let measure = move || {
        let (Some(prompt), Some(probe)) = (prompt_ref.get_untracked(), probe_ref.get_untracked())
        else {
            return;
        };
        let char_width = probe.get_bounding_client_rect().width() / PROBE_CHARS as f64;
        if char_width <= 0.0 {
            return;
        }
        // clientWidth is rounded down, so a line of this many characters always fits.
        let fits = ((f64::from(prompt.client_width()) + 0.01) / char_width).floor() as usize;
        if columns.get_untracked() != Some(fits) {
            set_columns.set(Some(fits));
        }
    };
    // Observers report once when they start, after layout and before paint: the first
    // lines are drawn in the frame that shows the prompt.
    let on_resize = Closure::<dyn FnMut()>::new(measure);
    let observer = StoredValue::new_local(
        web_sys::ResizeObserver::new(on_resize.as_ref().unchecked_ref()).ok(),
    );
    Effect::new(move || {
        if let Some(prompt) = prompt_ref.get() {
            observer.with_value(|observer| {
                if let Some(observer) = observer {
                    observer.observe(&prompt);
                }
            });
        }
    });
    let on_resize = StoredValue::new_local(Some(on_resize));
    on_cleanup(move || {
        if let Some(observer) = observer.get_value() {
            observer.disconnect();
        }
        on_resize.update_value(|closure| drop(closure.take()));
    });
    columns
}
