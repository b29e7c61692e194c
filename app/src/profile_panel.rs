//! The profile panel: the name, the settings typists care about, what happened to
//! changes that met another device's or a moderator's (in words), and the player's
//! devices. Every control changes the profile through the operation outbox, so it
//! applies at once, offline too, and reaches the player's other devices later.

use crate::devices::DevicesPanel;
use crate::services::profile::{ProfileService, ProfileView};
use crate::wording;
use keydo_core::Mode;
use keydo_core::classify::ErrorCode;
use keydo_core::profile::{
    Author, Caret, Changes, FONT_SIZES, Field, FieldValue, OperationState, Policy, QueuedOperation,
    Theme,
};
use leptos::prelude::*;

/// Labels an input method may carry, offered as suggestions; any other is allowed.
const INPUT_METHODS: [&str; 8] = [
    "键道",
    "小鹤双拼",
    "自然码",
    "微软双拼",
    "全拼",
    "五笔",
    "郑码",
    "仓颉",
];

#[component]
pub fn ProfilePanel() -> impl IntoView {
    let service = expect_context::<ProfileService>();
    let view = service.view();
    let change = move |value: FieldValue| {
        // Settings controls only offer valid values.
        let _ = service.change(std::iter::once(value).collect());
    };
    view! {
        <details class="profile-panel" data-testid="profile-panel">
            <summary>
                "Profile: "
                <bdi data-testid="profile-display-name">
                    {move || view.with(|v| v.profile.display_name.clone())}
                </bdi>
            </summary>
            <p class="profile-sync" data-testid="profile-sync" data-queued=move || view.with(|v| v.queued)>
                {move || match view.with(|v| v.queued) {
                    0 => "Your profile is the same on all your devices.".to_owned(),
                    n => format!("Saved here; {n} change{} still to reach your other devices.", if n == 1 { "" } else { "s" }),
                }}
            </p>
            <ul class="profile-notices">
                {move || view.with(|v| v.notices.iter().map(|notice| notice_line(notice, service)).collect_view())}
            </ul>
            <NameForm view/>
            <fieldset class="settings">
                <legend>"Settings"</legend>
                <label>"Theme "
                    <select data-testid="setting-theme" on:change=move |ev| {
                        if let Some(theme) = Theme::ALL.into_iter().find(|t| t.id() == event_target_value(&ev)) {
                            change(FieldValue::Theme(theme));
                        }
                    }>
                        {Theme::ALL.map(|theme| view! {
                            <option value=theme.id() selected=move || view.with(|v| v.profile.settings.theme == theme)>
                                {theme_label(theme)}
                            </option>
                        })}
                    </select>
                </label>
                <label>"Caret "
                    <select data-testid="setting-caret" on:change=move |ev| {
                        if let Some(caret) = Caret::ALL.into_iter().find(|c| c.id() == event_target_value(&ev)) {
                            change(FieldValue::Caret(caret));
                        }
                    }>
                        {Caret::ALL.map(|caret| view! {
                            <option value=caret.id() selected=move || view.with(|v| v.profile.settings.caret == caret)>
                                {caret_label(caret)}
                            </option>
                        })}
                    </select>
                </label>
                <label>"Font size "
                    <select data-testid="setting-font-size" on:change=move |ev| {
                        if let Ok(size) = event_target_value(&ev).parse() {
                            change(FieldValue::FontSize(size));
                        }
                    }>
                        {FONT_SIZES.step_by(2).map(|size| view! {
                            <option value=size selected=move || view.with(|v| v.profile.settings.font_size == size)>
                                {format!("{size} px")}
                            </option>
                        }).collect_view()}
                    </select>
                </label>
                <label>"Start in "
                    <select data-testid="setting-preferred-mode" on:change=move |ev| {
                        if let Ok(mode) = event_target_value(&ev).parse::<Mode>() {
                            change(FieldValue::PreferredMode(mode));
                        }
                    }>
                        {Mode::ALL.map(|mode| view! {
                            <option value=mode.id() selected=move || view.with(|v| v.profile.settings.preferred_mode == mode)>
                                {mode.name()}
                            </option>
                        })}
                    </select>
                </label>
                <label class="check">
                    <input type="checkbox" data-testid="setting-sound"
                        prop:checked=move || view.with(|v| v.profile.settings.sound)
                        on:change=move |ev| change(FieldValue::Sound(event_target_checked(&ev)))/>
                    " Sound on each key"
                </label>
                <InputMethodForm view/>
            </fieldset>
            <DevicesPanel/>
        </details>
    }
}

/// The display name, changed with a button (a name is typed, not picked).
#[component]
fn NameForm(view: Signal<ProfileView>) -> impl IntoView {
    let service = expect_context::<ProfileService>();
    let (error, set_error) = signal(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(field) = input.get() else { return };
        let changes = Changes {
            display_name: Some(field.value()),
            ..Changes::default()
        };
        set_error.set(service.change(changes).err());
    };
    view! {
        <form class="name-form" on:submit=submit>
            <label>"Name "
                <input node_ref=input data-testid="profile-name" maxlength="64" autocomplete="nickname"
                    prop:value=move || view.with(|v| v.profile.display_name.clone())/>
            </label>
            <button type="submit" data-testid="profile-name-save">"Change name"</button>
            {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="profile-name-error">{e}</p> })}
        </form>
    }
}

/// The input method's label, shown beside 中文 results.
#[component]
fn InputMethodForm(view: Signal<ProfileView>) -> impl IntoView {
    let service = expect_context::<ProfileService>();
    let (error, set_error) = signal(None::<String>);
    let on_change = move |ev| {
        let label = event_target_value(&ev);
        let changes: Changes = std::iter::once(FieldValue::InputMethod(label)).collect();
        set_error.set(service.change(changes).err());
    };
    view! {
        <label>"Input method (中文) "
            <input data-testid="setting-input-method" list="input-methods" maxlength="64"
                prop:value=move || view.with(|v| v.profile.settings.input_method.clone())
                on:change=on_change/>
        </label>
        <datalist id="input-methods">
            {INPUT_METHODS.map(|name| view! { <option value=name/> })}
        </datalist>
        {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="setting-error">{e}</p> })}
    }
}

/// A change that met another device's or a moderator's, or that the server refused.
fn notice_line(notice: &QueuedOperation, service: ProfileService) -> impl IntoView + use<> {
    let id = notice.operation_id;
    let words = notice_words(notice);
    view! {
        <li class="profile-notice" data-testid="profile-notice">
            {words}
            " "
            <button data-testid="profile-notice-dismiss" on:click=move |_| service.dismiss(id)>"OK"</button>
        </li>
    }
}

/// "Your name change to “Bo” was overridden by a moderator."
fn notice_words(notice: &QueuedOperation) -> String {
    let change = |field: Field| match notice.payload.get(field) {
        Some(FieldValue::DisplayName(name)) => format!("Your name change to “{name}”"),
        _ => format!("Your change of the {}", field.label()),
    };
    if notice.state == OperationState::Failed {
        let code = notice
            .sync
            .last_error
            .as_ref()
            .map_or("", ErrorCode::as_str);
        let first = notice
            .payload
            .fields()
            .first()
            .copied()
            .unwrap_or(Field::DisplayName);
        return format!(
            "{} was refused: {}",
            change(first),
            wording::explain(code).what
        );
    }
    notice
        .conflicts
        .iter()
        .map(|conflict| {
            let outcome = match (conflict.policy, conflict.by) {
                (Policy::ServerWins, _) | (_, Author::Operator) => "was overridden by a moderator.",
                _ => "was older than a change made on another device, which was kept.",
            };
            format!("{} {outcome}", change(conflict.field))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn theme_label(theme: Theme) -> &'static str {
    match theme {
        Theme::System => "Like the system",
        Theme::Light => "Light",
        Theme::Dark => "Dark",
    }
}

fn caret_label(caret: Caret) -> &'static str {
    match caret {
        Caret::Line => "Line",
        Caret::Block => "Block",
        Caret::Underline => "Underline",
    }
}
