//! `keydo-sync`'s flushes, loaded on demand: the first keystroke needs none of them
//! (docs/performance.md, "What loads first"). Each entry point is cut into the build's
//! `drawn` module (what the page loads once the game is drawn), fetched on its first
//! call (from the precache when offline); a failed load is [`SyncFailure::NotLoaded`]
//! and the next call tries again.

use super::profile_view::ProfileView;
use super::sync_view::SyncView;
use keydo_core::api::SaveCreated;
use keydo_core::sync::coalesce::FlushKind;
use keydo_core::sync::outbox::OutboxEntry;
use keydo_storage::Db;
use keydo_sync::{FlushReport, SyncError};
use leptos::prelude::window;
use std::future::Future;
use std::pin::Pin;
use uuid::Uuid;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_split_helpers::{SplitLoaderError, wasm_split};

/// Why a call into the sync engine failed.
#[derive(Debug)]
pub enum SyncFailure {
    /// Its module could not be fetched.
    NotLoaded,
    /// It ran and failed.
    Sync(SyncError),
}

impl std::fmt::Display for SyncFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SyncFailure::NotLoaded => f.write_str("the sync code could not be loaded"),
            SyncFailure::Sync(error) => error.fmt(f),
        }
    }
}

impl From<SplitLoaderError> for SyncFailure {
    fn from(_: SplitLoaderError) -> Self {
        SyncFailure::NotLoaded
    }
}

/// The Background Sync tag the service worker listens for.
const SYNC_TAG: &str = "flush-outbox";

/// A call into the module, once it is loaded.
type Running<T> = Pin<Box<dyn Future<Output = Result<T, SyncError>>>>;

/// Flushes the outbox (`keydo_sync::flush_outbox`).
pub async fn flush_outbox(kind: FlushKind) -> Result<FlushReport, SyncFailure> {
    run(load_flush(kind).await?).await
}

/// Drops a blocked result from the outbox (`keydo_sync::discard_blocked`).
pub async fn discard_blocked(score_id: Uuid) -> Result<Option<OutboxEntry>, SyncFailure> {
    run(load_discard(score_id).await?).await
}

/// Plays as a linked save from now on (`keydo_sync::adopt_save`).
pub async fn adopt_save(save: SaveCreated) -> Result<usize, SyncFailure> {
    run(load_adopt(save).await?).await
}

/// The profile as the stored queue has it, read in this module: the main module reads
/// only its [`keydo_core::profile::LocalProfile`] (docs/performance.md, "What loads
/// first").
pub async fn profile_view() -> Result<ProfileView, SyncFailure> {
    run(load_profile_view().await?).await
}

/// What the sync status shows of the outbox (`Db::sync_status`), read and counted in
/// this module: the main module writes the outbox and never reads it whole
/// (docs/performance.md, "What loads first").
pub async fn sync_view() -> Result<SyncView, SyncFailure> {
    run(load_sync_view().await?).await
}

/// Asks the server for the profile (`keydo_sync::refresh_profile`): the view of the
/// stored queue, if the answer changed it.
pub async fn refresh_profile() -> Result<Option<ProfileView>, SyncFailure> {
    run(load_refresh().await?).await
}

/// Registers the `flush-outbox` Background Sync where the browser has it, so that the
/// service worker delivers even if the page is closed; nothing if this module cannot
/// be fetched (the page's own flush delivers regardless).
pub async fn register_background_sync() {
    if let Ok(registering) = load_register().await {
        registering.await;
    }
}

async fn run<T>(running: Running<T>) -> Result<T, SyncFailure> {
    running.await.map_err(SyncFailure::Sync)
}

#[wasm_split(drawn, fallible)]
fn load_flush(kind: FlushKind) -> Result<Running<FlushReport>, SyncFailure> {
    Ok(Box::pin(keydo_sync::flush_outbox(kind)))
}

#[wasm_split(drawn, fallible)]
fn load_discard(score_id: Uuid) -> Result<Running<Option<OutboxEntry>>, SyncFailure> {
    Ok(Box::pin(keydo_sync::discard_blocked(score_id)))
}

#[wasm_split(drawn, fallible)]
fn load_adopt(save: SaveCreated) -> Result<Running<usize>, SyncFailure> {
    Ok(Box::pin(async move { keydo_sync::adopt_save(&save).await }))
}

#[wasm_split(drawn, fallible)]
fn load_profile_view() -> Result<Running<ProfileView>, SyncFailure> {
    Ok(Box::pin(async {
        Ok(ProfileView::of(&Db::open().await?.profile_queue().await?))
    }))
}

#[wasm_split(drawn, fallible)]
fn load_sync_view() -> Result<Running<SyncView>, SyncFailure> {
    Ok(Box::pin(async {
        Ok(SyncView::of(Db::open().await?.sync_status().await?))
    }))
}

#[wasm_split(drawn, fallible)]
fn load_refresh() -> Result<Running<Option<ProfileView>>, SyncFailure> {
    Ok(Box::pin(async {
        let queue = keydo_sync::refresh_profile().await?;
        Ok(queue.as_ref().map(ProfileView::of))
    }))
}

#[wasm_split(drawn, fallible)]
fn load_register() -> Result<Pin<Box<dyn Future<Output = ()>>>, SyncFailure> {
    Ok(Box::pin(register()))
}

/// The registration, in the `drawn` module.
async fn register() {
    let navigator = window().navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let Ok(ready) = navigator.service_worker().ready() else {
        return;
    };
    let Ok(registration) = JsFuture::from(ready).await else {
        return;
    };
    // Only Chromium browsers have `registration.sync`; elsewhere the foreground flush delivers.
    let Ok(sync) = js_sys::Reflect::get(&registration, &"sync".into()) else {
        return;
    };
    if sync.is_undefined() {
        return;
    }
    let register = js_sys::Reflect::get(&sync, &"register".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(register) = register
        && let Ok(promise) = register.call1(&sync, &SYNC_TAG.into())
        && let Ok(promise) = promise.dyn_into::<js_sys::Promise>()
    {
        // Refused without a window or permission: the foreground flush still runs.
        let _ = JsFuture::from(promise).await;
    }
}
