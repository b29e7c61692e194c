//! The custom text form of the practice panel (docs/practice.md, "Custom text"): the
//! player's text, repeat or shuffle, a limit of words (字) or seconds, kept across
//! reloads with its setting's personal best.

use super::{PracticeText, StartPractice};
use crate::services::practice::PracticeService;
use keydo_core::practice::custom::{
    CustomText, Limit, Order, SECONDS_LIMIT_RANGE, WORD_LIMIT_RANGE,
};
use leptos::html::{Input, Select, Textarea};
use leptos::prelude::*;

/// What the form shows before any text was set: a word limit of 25.
const DEFAULT_WORDS: u16 = 25;

#[component]
pub fn CustomTextForm() -> impl IntoView {
    let service = expect_context::<PracticeService>();
    let start = expect_context::<StartPractice>().0;
    let kept = service.custom();
    let text_ref = NodeRef::<Textarea>::new();
    let order_ref = NodeRef::<Select>::new();
    let limit_ref = NodeRef::<Select>::new();
    let amount_ref = NodeRef::<Input>::new();
    let (error, set_error) = signal(None::<String>);
    let (not_kept, set_not_kept) = signal(None::<ReadSignal<Option<Result<(), String>>>>);

    // The fields show the text kept (read once the database answers).
    let kept_text = move || kept.with(|k| k.as_ref().map(|(c, _)| c.text().to_owned()));
    let kept_order = move || {
        kept.with(|k| match k.as_ref().map(|(c, _)| c.order()) {
            Some(Order::Shuffle) => "shuffle",
            _ => "repeat",
        })
    };
    let kept_limit = move || kept.with(|k| k.as_ref().map(|(c, _)| c.limit()));
    let limit_kind = move || match kept_limit() {
        Some(Limit::Seconds(_)) => "seconds",
        _ => "words",
    };
    let amount = move || match kept_limit() {
        Some(Limit::Seconds(n) | Limit::Words(n)) => n.to_string(),
        None => DEFAULT_WORDS.to_string(),
    };
    let best = move || {
        kept.with(|k| {
            let (custom, best) = k.as_ref()?;
            let mode = custom.mode();
            Some(match best {
                Some(best) => format!("Best for this text, {custom}: {}", mode.format_value(*best)),
                None => format!("No best yet for this text, {custom}."),
            })
        })
    };

    let play = move |_| {
        let field = |value: Option<String>| value.unwrap_or_default();
        let text = field(text_ref.get_untracked().map(|t| t.value()));
        let order = match field(order_ref.get_untracked().map(|s| s.value())).as_str() {
            "shuffle" => Order::Shuffle,
            _ => Order::Repeat,
        };
        let amount = field(amount_ref.get_untracked().map(|i| i.value()));
        let limit = match (
            field(limit_ref.get_untracked().map(|s| s.value())).as_str(),
            amount.trim().parse::<u16>(),
        ) {
            ("seconds", Ok(n)) => Limit::Seconds(n),
            ("words", Ok(n)) => Limit::Words(n),
            (kind, Err(_)) => {
                let (low, high) = match kind {
                    "seconds" => SECONDS_LIMIT_RANGE,
                    _ => WORD_LIMIT_RANGE,
                };
                set_error.set(Some(format!(
                    "The limit must be a whole number from {low} to {high}."
                )));
                return;
            }
            _ => return,
        };
        // A refused text stays in the field: nothing the player typed is lost.
        match CustomText::new(&text, order, limit) {
            Ok(custom) => {
                set_error.set(None);
                set_not_kept.set(Some(service.set_custom(custom.clone())));
                start.run(PracticeText::of_custom(custom));
            }
            Err(refused) => set_error.set(Some(refused.to_string())),
        }
    };
    let storing = move || {
        let failed = not_kept.get()?.get()?.err()?;
        Some(view! {
            <p class="load-text-error" role="alert">
                {format!("The text is played but not kept for the next visit: {failed}")}
            </p>
        })
    };
    view! {
        <div class="custom-text" data-testid="custom-text-form">
            <h3>"Custom text"</h3>
            <label>
                "Your text "
                <textarea
                    node_ref=text_ref
                    data-testid="custom-text"
                    rows="3"
                    placeholder="Paste or type any text to practise"
                    prop:value=move || kept_text().unwrap_or_default()
                ></textarea>
            </label>
            <label>
                "Order "
                <select node_ref=order_ref data-testid="custom-order">
                    <option value="repeat" selected=move || kept_order() == "repeat">"repeat"</option>
                    <option value="shuffle" selected=move || kept_order() == "shuffle">"shuffle"</option>
                </select>
            </label>
            <label>
                "Limit "
                <input
                    node_ref=amount_ref
                    type="number"
                    min=WORD_LIMIT_RANGE.0
                    max=SECONDS_LIMIT_RANGE.1.max(WORD_LIMIT_RANGE.1)
                    data-testid="custom-amount"
                    prop:value=amount
                />
                <select node_ref=limit_ref data-testid="custom-limit">
                    <option value="words" selected=move || limit_kind() == "words">"words (字)"</option>
                    <option value="seconds" selected=move || limit_kind() == "seconds">"seconds"</option>
                </select>
            </label>
            <button data-testid="custom-play" on:click=play>"Play custom text"</button>
            <p class="custom-best" data-testid="custom-best">{best}</p>
            {move || error.get().map(|error| view! {
                <p class="load-text-error" role="alert" data-testid="custom-error">{error}</p>
            })}
            {storing}
        </div>
    }
}
