//! "Play on another device" (docs/profile.md, "Devices"): a one-time link code, as text
//! and as a QR code of a link that opens KeyDo with the code filled in; entering a code
//! from the player's other device; and the player's devices, each revocable.

use crate::services::api;
use crate::services::profile::ProfileService;
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

/// Enters a code shown on the player's other device: this device joins that player.
#[component]
fn EnterLinkCode() -> impl IntoView {
    let profile = expect_context::<ProfileService>();
    let code = RwSignal::new(code_in_address().unwrap_or_default());
    // One key per code: a resend after a lost answer is the same request.
    let key = StoredValue::new((String::new(), Uuid::new_v4()));
    let link = Action::new_local(move |(code, idempotency_key): &(String, Uuid)| {
        profile.link_device(code.clone(), *idempotency_key)
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let entered = code.get_untracked();
        let idempotency_key =
            key.with_value(|(for_code, key)| (*for_code == entered).then_some(*key));
        let idempotency_key = idempotency_key.unwrap_or_else(|| {
            let fresh = Uuid::new_v4();
            key.set_value((entered.clone(), fresh));
            fresh
        });
        link.dispatch((entered, idempotency_key));
    };
    let message = move || {
        link.value().get().map(|linked| match linked {
            Ok(name) => (
                true,
                format!("This device now plays as {name}; its results go to that player too."),
            ),
            Err(words) => (false, words),
        })
    };
    view! {
        <form class="link-form" on:submit=submit>
            <label>"Code from your other device "
                <input data-testid="link-code-input" autocomplete="off" autocapitalize="characters"
                    spellcheck="false" bind:value=code/>
            </label>
            <button type="submit" data-testid="link-code-submit">"Link this device"</button>
            {move || message().map(|(ok, words)| view! {
                <p class=if ok { "form-ok" } else { "form-error" } role="status" data-testid="link-result">{words}</p>
            })}
        </form>
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
