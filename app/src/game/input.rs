//! The field that receives the player's keys.
//!
//! Characters arrive through `beforeinput` (`insertText`) and IME commits through
//! `compositionend`, never through `keydown`, so every input method works. The default
//! action is cancelled for everything the game handles, so the field stays empty
//! outside a composition; during one the field shows the IME's text natively (with its
//! candidate window anchored to it) and the game scores nothing until the commit.
//! Backspace is taken from `keydown` because an empty field fires no `beforeinput` for
//! it; keyboards that send no key name (many virtual keyboards) reach the
//! `deleteContentBackward` branch instead. Every key press clicks when the player's
//! settings ask for it.

mod click;
mod edits;

use crate::services::profile::ProfileService;
use keydo_core::Edit;
use leptos::html::Input;
use leptos::prelude::*;
use web_sys::{CompositionEvent, InputEvent, KeyboardEvent};

/// An event's time on the page's clock (`performance.now()`), in whole ms.
fn event_time(event: &web_sys::Event) -> u64 {
    event.time_stamp().round() as u64
}

/// The text field, labelled for screen readers; `on_edit` gets each edit with its time.
#[component]
pub fn TypingInput(
    node_ref: NodeRef<Input>,
    on_edit: impl Fn(Edit, u64) + Copy + 'static,
    label: &'static str,
) -> impl IntoView {
    let on_beforeinput = move |event: InputEvent| {
        let handled = edits::beforeinput(&event.input_type(), event.data(), event.is_composing());
        if handled.cancel {
            event.prevent_default();
        }
        if let Some(edit) = handled.edit {
            on_edit(edit, event_time(&event));
        }
    };
    let profile = use_context::<ProfileService>().map(|service| service.view());
    let on_keydown = move |event: KeyboardEvent| {
        if profile.is_some_and(|view| view.with_untracked(|v| v.profile.settings.sound)) {
            click::play();
        }
        let ctrl_or_alt = event.ctrl_key() || event.alt_key();
        if let Some(edit) = edits::keydown(&event.key(), ctrl_or_alt, event.is_composing()) {
            event.prevent_default();
            on_edit(edit, event_time(&event));
        }
    };
    let on_compositionend = move |event: CompositionEvent| {
        on_edit(
            Edit::CompositionEnd(event.data().unwrap_or_default()),
            event_time(&event),
        );
        if let Some(input) = node_ref.get_untracked() {
            input.set_value("");
        }
    };
    // Safari's `autocorrect` has no typed attribute in Leptos.
    Effect::new(move || {
        if let Some(input) = node_ref.get() {
            let _ = input.set_attribute("autocorrect", "off");
        }
    });
    view! {
        <input
            node_ref=node_ref
            class="typing-input"
            data-testid="input"
            type="text"
            aria-label=label
            aria-describedby="prompt"
            placeholder=label
            autocomplete="off"
            autocapitalize="off"
            spellcheck="false"
            on:beforeinput=on_beforeinput
            on:keydown=on_keydown
            on:compositionstart=move |event: CompositionEvent| on_edit(Edit::CompositionStart, event_time(&event))
            on:compositionupdate=move |event: CompositionEvent| {
                on_edit(Edit::CompositionUpdate(event.data().unwrap_or_default()), event_time(&event))
            }
            on:compositionend=on_compositionend
        />
    }
}
