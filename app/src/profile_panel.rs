//! The profile panel: the name, the settings typists care about, what happened to
//! changes that met another device's or a moderator's (in words), and the player's
//! devices. Every control changes the profile through the operation outbox, so it
//! applies at once, offline too, and reaches the player's other devices later.

use crate::devices::{DevicesPanel, code_in_address};
use crate::services::profile::ProfileService;
use crate::services::profile_view::ProfileView;
use crate::wording;
use keydo_core::Mode;
use keydo_core::profile::{
    Author, Caret, Changes, FONT_SIZES, Field, FieldValue, OperationState, Policy, QueuedOperation,
    Settings, Theme,
};
use keydo_core::sync::classify::ErrorCode;
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
    // The body is drawn when the panel is first opened: most visits never open it.
    // A page opened from a link code's QR code opens it at once, on the code's form.
    let opened = RwSignal::new(code_in_address().is_some());
    view! {
        <details class="profile-panel" data-testid="profile-panel" open=opened.get_untracked()
            on:toggle=move |_| opened.set(true)>
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
            <Show when=move || opened.get()>
            <ul class="profile-notices">
                {move || view.with(|v| v.notices.iter().map(|notice| notice_line(notice, service)).collect_view())}
            </ul>
            <NameForm view/>
            <fieldset class="settings">
                <legend>"Settings"</legend>
                {setting_select("Theme ", "setting-theme",
                    Theme::ALL.map(|t| (t.id().to_owned(), theme_label(t).to_owned())).to_vec(),
                    |s| s.theme.id().to_owned(),
                    |id| Theme::ALL.into_iter().find(|t| t.id() == id).map(FieldValue::Theme))}
                {setting_select("Caret ", "setting-caret",
                    Caret::ALL.map(|c| (c.id().to_owned(), caret_label(c).to_owned())).to_vec(),
                    |s| s.caret.id().to_owned(),
                    |id| Caret::ALL.into_iter().find(|c| c.id() == id).map(FieldValue::Caret))}
                {setting_select("Font size ", "setting-font-size",
                    FONT_SIZES.step_by(2).map(|size| (size.to_string(), format!("{size} px"))).collect(),
                    |s| s.font_size.to_string(),
                    |id| id.parse().ok().map(FieldValue::FontSize))}
                {setting_select("Start in ", "setting-preferred-mode",
                    Mode::ALL.map(|m| (m.id().to_owned(), m.name().to_owned())).to_vec(),
                    |s| s.preferred_mode.id().to_owned(),
                    |id| id.parse::<Mode>().ok().map(FieldValue::PreferredMode))}
                <label class="check">
                    <input type="checkbox" data-testid="setting-sound"
                        prop:checked=move || view.with(|v| v.profile.settings.sound)
                        on:change=move |ev| change(FieldValue::Sound(event_target_checked(&ev)))/>
                    " Sound on each key"
                </label>
                <InputMethodForm view/>
            </fieldset>
            <DevicesPanel/>
            </Show>
        </details>
    }
}

/// A setting picked from a list: `options` are (value, label); `current` reads the
/// value from the settings, `pick` turns a value into the change.
fn setting_select(
    label: &'static str,
    testid: &'static str,
    options: Vec<(String, String)>,
    current: fn(&Settings) -> String,
    pick: fn(&str) -> Option<FieldValue>,
) -> impl IntoView {
    let service = expect_context::<ProfileService>();
    let view = service.view();
    let on_change = move |ev| {
        if let Some(value) = pick(&event_target_value(&ev)) {
            // The list offers only valid values.
            let _ = service.change(std::iter::once(value).collect());
        }
    };
    view! {
        <label>{label}
            <select data-testid=testid on:change=on_change>
                {options.into_iter().map(|(value, text)| {
                    let selected = value.clone();
                    view! {
                        <option value=value selected=move || view.with(|v| current(&v.profile.settings) == selected)>
                            {text}
                        </option>
                    }
                }).collect_view()}
            </select>
        </label>
    }
}

/// The display name, changed with a button (a name is typed, not picked).
#[component]
fn NameForm(view: Signal<ProfileView>) -> impl IntoView {
    let service = expect_context::<ProfileService>();
    let (error, set_error) = signal(None::<String>);
    let input = NodeRef::<leptos::html::Input>::new();
    follow_stored(
        input,
        Memo::new(move |_| view.with(|v| v.profile.display_name.clone())),
    );
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
                <input node_ref=input data-testid="profile-name" maxlength="64" autocomplete="nickname"/>
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
    let input = NodeRef::<leptos::html::Input>::new();
    follow_stored(
        input,
        Memo::new(move |_| view.with(|v| v.profile.settings.input_method.clone())),
    );
    let on_change = move |ev| {
        let label = event_target_value(&ev);
        let changes: Changes = std::iter::once(FieldValue::InputMethod(label)).collect();
        set_error.set(service.change(changes).err());
    };
    view! {
        <label>"Input method (中文) "
            <input node_ref=input data-testid="setting-input-method" list="input-methods" maxlength="64"
                on:change=on_change/>
        </label>
        <datalist id="input-methods">
            {INPUT_METHODS.map(|name| view! { <option value=name/> })}
        </datalist>
        {move || error.get().map(|e| view! { <p class="form-error" role="alert" data-testid="setting-error">{e}</p> })}
    }
}

/// Keeps a text field showing the stored value but never over what the player typed:
/// when the stored value changes, the field follows only if it still shows the value
/// stored before. The view changes on every poll and flush, and the stored name itself
/// changes when the device's first save brings the server's name; neither may wipe out
/// a name being typed.
fn follow_stored(field: NodeRef<leptos::html::Input>, stored: Memo<String>) {
    let shown = StoredValue::new(None::<String>);
    Effect::new(move || {
        let value = stored.get();
        let Some(field) = field.get() else {
            return;
        };
        let untouched = shown.with_value(|before| {
            before
                .as_ref()
                .is_none_or(|before| field.value() == *before)
        });
        if untouched {
            field.set_value(&value);
        }
        shown.set_value(Some(value));
    });
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
