//! The prompt on screen: one span per character, each with its own signal, so a
//! keystroke re-renders the one or two spans it touches rather than the whole prompt.
//!
//! The element's text is exactly the prompt (tests read it): the caret is a class on
//! the character it stands before, drawn by CSS, never an inserted node.

use keydo_core::{CharState, Session};
use leptos::html::Div;
use leptos::prelude::*;

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

/// The prompt's characters with their marks. A click focuses the typing field.
#[component]
pub fn PromptView(
    text: Vec<char>,
    marks: Marks,
    node_ref: NodeRef<Div>,
    #[prop(into)] composing: Signal<bool>,
    lang: &'static str,
    on_click: impl Fn() + 'static,
) -> impl IntoView {
    let spans = text
        .into_iter()
        .enumerate()
        .map(|(index, ch)| {
            let mark = marks.0.with_value(|m| m[index]);
            view! { <span class=move || mark.get().class()>{ch}</span> }
        })
        .collect_view();
    view! {
        <div
            node_ref=node_ref
            class="prompt"
            class:composing=move || composing.get()
            data-testid="prompt"
            lang=lang
            id="prompt"
            on:click=move |_| on_click()
        >
            {spans}
        </div>
    }
}
