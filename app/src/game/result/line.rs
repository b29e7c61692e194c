//! The 成绩 line 跟打 players paste back into their group, and the button that copies
//! it (docs/scoring.md, "The 成绩 line").

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen_futures::JsFuture;

/// What the last copy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Copied {
    Done,
    Failed,
}

/// The line (reactive: its 验证 code arrives once the server has verified the result)
/// and a button copying it with the clipboard API, saying whether that worked.
#[component]
pub fn ResultLine(line: Signal<String>) -> impl IntoView {
    let (copied, set_copied) = signal(None::<Copied>);
    // The text, notifying only when it changes: `line` is derived from the saving
    // state, which moves (a delivery tried offline) without changing the text.
    let line = Memo::new(move |_| line.get());
    let copy = move |_| {
        let text = line.get_untracked();
        spawn_local(async move {
            let promise = window().navigator().clipboard().write_text(&text);
            let outcome = match JsFuture::from(promise).await {
                Ok(_) => Copied::Done,
                Err(_) => Copied::Failed,
            };
            set_copied.set(Some(outcome));
        });
    };
    // A new line (its code arrived) has not been copied yet; the same line still is.
    Effect::new(move |_| {
        line.track();
        set_copied.set(None);
    });
    let status = move || match copied.get() {
        None => "",
        Some(Copied::Done) => "Copied",
        Some(Copied::Failed) => "Could not copy: select the line and copy it yourself.",
    };
    view! {
        <div class="result-line">
            <p class="result-line-text" data-testid="result-line" lang="zh-Hans">{line}</p>
            <button class="copy-line" data-testid="copy-result-line" on:click=copy>"Copy 成绩"</button>
            <span
                class="copy-status"
                class:refused=move || copied.get() == Some(Copied::Failed)
                role="status"
                data-testid="copy-status"
            >
                {status}
            </span>
        </div>
    }
}
