//! The worker's start-up module: the fetch handler.
//!
//! `/sw.js` carries this module and instantiates it at every start of the worker,
//! so it holds only what a fetch needs; everything else is in `keydo_lifecycle`
//! (see the crate's library).
//!
//! No `main` in the wasm: without one it carries none of std's program start-up.
#![cfg_attr(target_arch = "wasm32", no_main)]

use keydo_sw::{WorkerConfig, respond, worker};
use wasm_bindgen::prelude::*;
use web_sys::FetchEvent;

#[wasm_bindgen]
pub fn on_fetch(event: FetchEvent, config: WorkerConfig) {
    respond::fetch(&worker(config), &event);
}

/// Native builds (unit tests, lints) need an entry point; the worker has none.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
