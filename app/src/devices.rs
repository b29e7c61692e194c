//! "Play on another device" (docs/profile.md, "Devices"): a one-time link code, as text
//! and as a QR code of a link that opens KeyDo with the code filled in; entering a code
//! from the player's other device, which says what joining will do and waits for the
//! player's yes; and the player's devices, each revocable.

use crate::services::api;
use crate::services::profile::ProfileService;
use crate::services::records::Records;
use keydo_core::Mode;
use keydo_core::api::{Device, LinkCode};
use leptos::prelude::*;
use leptos::task::spawn_local;
use qrcodegen::{QrCode, QrCodeEcc};
use uuid::Uuid;

/// The fragment that carries a link code in the QR code's address: `#link=<code>`.
const LINK_FRAGMENT: &str = "#link=";

#[component]
pub fn DevicesPanel() -> impl IntoView {
    view! {
        <fieldset class="devices">
            <legend>"Play on another device"</legend>
            <ShowLinkCode/>
            <EnterLinkCode/>
            <DeviceList/>
        </fieldset>
    }
}

/// Asks the server for a code and shows it.
#[component]
fn ShowLinkCode() -> impl IntoView {
    let (shown, set_shown) = signal(None::<Result<LinkCode, String>>);
    let show = move |_| {
        spawn_local(async move {
            set_shown.set(Some(api::link_code().await));
        });
    };
    view! {
        <button data-testid="link-code-show" on:click=show>"Show a link code"</button>
        {move || shown.get().map(|shown| match shown {
            Ok(code) => view! {
                <div class="link-code">
                    <p>"On your other device, open KeyDo and enter "
                        <strong data-testid="link-code" translate="no">{code.code.clone()}</strong>
                        " (valid for a few minutes, once), or scan:"</p>
                    {qr_svg(&link_address(&code.code))}
                </div>
            }.into_any(),
            Err(words) => view! { <p class="form-error" role="alert" data-testid="link-error">{words}</p> }.into_any(),
        })}
    }
}

/// Where entering a code stands.
#[derive(Debug, Clone, PartialEq)]
enum LinkStep {
    /// Typing or pasting a code (a code from the address is filled in, never sent).
    Entering,
    /// The server said whose the code is; linking waits for the player's yes.
    Confirming { code: String, target: String },
    /// What came of the check, the link or the player's no.
    Answered { ok: bool, words: String },
}

/// Enters a code shown on the player's other device, says what joining that player will
/// do to this device's save, and joins only when the player confirms it.
#[component]
fn EnterLinkCode() -> impl IntoView {
    let profile = expect_context::<ProfileService>();
    let records = expect_context::<Records>();
    let code = RwSignal::new(code_in_address().unwrap_or_default());
    let step = RwSignal::new(LinkStep::Entering);
    let busy = RwSignal::new(false);
    // One key per code: a resend after a lost answer is the same request.
    let key = StoredValue::new((String::new(), Uuid::new_v4()));
    let check = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let entered = code.get_untracked();
        busy.set(true);
        spawn_local(async move {
            step.set(match api::check_link_code(&entered).await {
                Ok(owner) => LinkStep::Confirming {
                    code: entered,
                    target: owner.display_name,
                },
                Err(words) => LinkStep::Answered { ok: false, words },
            });
            busy.set(false);
        });
    };
    let confirm = move |_| {
        let LinkStep::Confirming { code, .. } = step.get_untracked() else {
            return;
        };
        let idempotency_key = key.with_value(|(for_code, key)| (*for_code == code).then_some(*key));
        let idempotency_key = idempotency_key.unwrap_or_else(|| {
            let fresh = Uuid::new_v4();
            key.set_value((code.clone(), fresh));
            fresh
        });
        busy.set(true);
        spawn_local(async move {
            step.set(match profile.link_device(code, idempotency_key).await {
                Ok(name) => LinkStep::Answered {
                    ok: true,
                    words: format!(
                        "This device now plays as {name}; its results go to that player too."
                    ),
                },
                Err(words) => LinkStep::Answered { ok: false, words },
            });
            busy.set(false);
        });
    };
    let cancel = move |_| {
        step.set(LinkStep::Answered {
            ok: true,
            words: "Not linked: this device keeps its own save.".to_owned(),
        });
    };
    let consequences = move |target: &str| {
        let own_name = profile
            .view()
            .with(|view| view.profile.display_name.clone());
        let bests: Vec<(Mode, i64)> = Mode::ALL
            .into_iter()
            .filter_map(|mode| records.best(mode).map(|best| (mode, best)))
            .collect();
        link_consequences(&own_name, &bests, target)
    };
    view! {
        <form class="link-form" on:submit=check>
            <label>"Code from your other device "
                <input data-testid="link-code-input" autocomplete="off" autocapitalize="characters"
                    spellcheck="false" bind:value=code
                    on:input=move |_| step.set(LinkStep::Entering)/>
            </label>
            <button type="submit" data-testid="link-code-submit" disabled=move || busy.get()>"Link this device…"</button>
            {move || match step.get() {
                LinkStep::Entering => None,
                LinkStep::Confirming { target, .. } => Some(view! {
                    <div class="link-confirm" role="alertdialog" aria-labelledby="link-confirm-words" data-testid="link-confirm">
                        <p id="link-confirm-words" data-testid="link-confirm-words">{consequences(&target)}</p>
                        <button type="button" data-testid="link-confirm-join" disabled=move || busy.get()
                            on:click=confirm>{format!("Join {target}")}</button>
                        " "
                        <button type="button" data-testid="link-confirm-cancel" disabled=move || busy.get()
                            on:click=cancel>"Cancel"</button>
                    </div>
                }.into_any()),
                LinkStep::Answered { ok, words } => Some(view! {
                    <p class=if ok { "form-ok" } else { "form-error" } role="status" data-testid="link-result">{words}</p>
                }.into_any()),
            }}
        </form>
    }
}

/// What joining `target` does to this device's save, in words: the save (`own_name`,
/// empty before the device first reached the server) with its `bests` joins `target`,
/// its name gives way to `target`'s, its results and bests are kept for `target`, and
/// its other devices are signed out (docs/profile.md, "Devices").
fn link_consequences(own_name: &str, bests: &[(Mode, i64)], target: &str) -> String {
    let bests = bests
        .iter()
        .map(|&(mode, best)| format!("{} in {}", mode.format_value(best), mode.name()))
        .collect::<Vec<_>>()
        .join(", ");
    let best = if bests.is_empty() {
        String::new()
    } else {
        format!(", best {bests},")
    };
    let mut words = if own_name.is_empty() {
        format!("This device{best} joins {target} and plays as {target} from now on.")
    } else {
        format!(
            "This device's save {own_name}{best} joins {target}; its name is replaced by {target}, \
             and any other device playing as {own_name} is signed out."
        )
    };
    if !bests.is_empty() {
        words.push_str(&format!(
            " Its results and bests are kept and count for {target}."
        ));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linking_says_which_save_joins_whom_and_what_it_keeps() {
        assert_eq!(
            link_consequences("Calm Dolphin", &[(Mode::Words, 13094)], "Swift Otter"),
            "This device's save Calm Dolphin, best 130.94 WPM in Words, joins Swift Otter; \
             its name is replaced by Swift Otter, and any other device playing as Calm Dolphin \
             is signed out. Its results and bests are kept and count for Swift Otter."
        );
        assert_eq!(
            link_consequences("Calm Dolphin", &[], "Swift Otter"),
            "This device's save Calm Dolphin joins Swift Otter; its name is replaced by Swift \
             Otter, and any other device playing as Calm Dolphin is signed out."
        );
        assert_eq!(
            link_consequences("", &[(Mode::Time, 6000), (Mode::Zh, 4550)], "Ann"),
            "This device, best 60.00 WPM in Time, 45.50 字/分 in 中文, joins Ann and plays as Ann \
             from now on. Its results and bests are kept and count for Ann."
        );
    }
}

/// The player's devices, with Revoke.
#[component]
fn DeviceList() -> impl IntoView {
    // Asked for only when the player wants the list (then after each revoke).
    let (refreshes, set_refreshes) = signal(0u32);
    let devices = LocalResource::new(move || {
        let asked = refreshes.get() > 0;
        async move {
            match asked {
                true => Some(api::devices().await),
                false => None,
            }
        }
    });
    let revoke = move |id: Uuid| {
        spawn_local(async move {
            if let Err(words) = api::revoke(id).await {
                web_sys::console::warn_1(&words.into());
            }
            set_refreshes.update(|n| *n += 1);
        });
    };
    view! {
        <button data-testid="devices-refresh" on:click=move |_| set_refreshes.update(|n| *n += 1)>"Show my devices"</button>
        <ul class="device-list" data-testid="device-list">
            {move || devices.get().flatten().map(|answer| match answer {
                Ok(list) => list.devices.into_iter().map(|device| device_row(device, revoke)).collect_view().into_any(),
                Err(words) => view! { <li class="form-error">{words}</li> }.into_any(),
            })}
        </ul>
    }
}

fn device_row(device: Device, revoke: impl Fn(Uuid) + Copy + 'static) -> impl IntoView {
    let id = device.id;
    let linked = js_sys::Date::new(&(device.linked_at as f64).into())
        .to_locale_date_string("default", &js_sys::Object::new());
    view! {
        <li data-testid="device" data-current=device.current.to_string()>
            {device.label}
            {format!(", since {linked}")}
            {device.current.then_some(" (this device)")}
            " "
            <button data-testid="device-revoke" on:click=move |_| revoke(id)>
                {if device.current { "Sign out" } else { "Revoke" }}
            </button>
        </li>
    }
}

/// The address a QR code carries: this KeyDo, with the code in the fragment (never
/// sent to a server, never in a log).
fn link_address(code: &str) -> String {
    let origin = window().location().origin().unwrap_or_default();
    format!("{origin}/{LINK_FRAGMENT}{code}")
}

/// The code in the address, when the page was opened from a QR code.
pub fn code_in_address() -> Option<String> {
    let hash = window().location().hash().ok()?;
    hash.strip_prefix(LINK_FRAGMENT).map(str::to_owned)
}

/// `text` as a QR code, one SVG path of unit squares.
fn qr_svg(text: &str) -> impl IntoView + use<> {
    let qr = QrCode::encode_text(text, QrCodeEcc::Medium).ok()?;
    let size = qr.size();
    let mut path = String::new();
    for y in 0..size {
        for x in 0..size {
            if qr.get_module(x, y) {
                path.push_str(&format!("M{x} {y}h1v1h-1z"));
            }
        }
    }
    // A quiet zone of four modules on each side, as scanners expect.
    let view_box = format!("-4 -4 {} {}", size + 8, size + 8);
    Some(view! {
        <svg class="qr" data-testid="link-code-qr" viewBox=view_box role="img" aria-label="QR code of the link">
            <rect x="-4" y="-4" width="100%" height="100%" fill="#fff"/>
            <path d=path fill="#000"/>
        </svg>
    })
}
