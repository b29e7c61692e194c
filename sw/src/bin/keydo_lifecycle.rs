//! The worker's lifecycle module: install, activate, the page's messages and
//! Background Sync.
//!
//! None of these comes with a page waiting on the worker's start-up, and a version
//! installs and activates once, so this code is kept out of the module every start
//! compiles. `/sw.js` loads this module on the first of these events, and calls
//! its handlers while its own `waitUntil` holds the event open (see the crate's
//! library).
#![cfg_attr(target_arch = "wasm32", no_main)]

use keydo_sw::{WorkerConfig, lifecycle, sync, worker};
use wasm_bindgen::prelude::*;
use web_sys::{ExtendableEvent, ExtendableMessageEvent};

#[wasm_bindgen]
pub fn on_install(event: ExtendableEvent, config: WorkerConfig) {
    lifecycle::install(worker(config), &event);
}

#[wasm_bindgen]
pub fn on_activate(event: ExtendableEvent, config: WorkerConfig) {
    lifecycle::activate(worker(config), &event);
}

#[wasm_bindgen]
pub fn on_message(event: ExtendableMessageEvent) {
    lifecycle::message(&event);
}

#[wasm_bindgen]
pub fn on_sync(event: ExtendableEvent, config: WorkerConfig) {
    sync::sync(worker(config), &event);
}

/// Native builds (unit tests, lints) need an entry point; the module has none.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
