//! One flush at a time per profile, across tabs and the service worker.
//!
//! Uses the Web Locks API (`navigator.locks.request`) where the browser has it; the
//! lock is held until the flush's promise settles. Without it, each context still
//! runs one flush at a time through its own coordinator, and the best-only outbox
//! plus the server's idempotent upsert make a rare overlap harmless.

use js_sys::{Function, Promise, Reflect};
use std::cell::RefCell;
use std::pin::Pin;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};

type Work<T> = Rc<RefCell<Option<Pin<Box<dyn Future<Output = T>>>>>>;

/// Runs `work` holding the exclusive lock `name` (or without it, where there are none).
pub async fn exclusive<T: 'static>(name: &str, work: impl Future<Output = T> + 'static) -> T {
    let work: Work<T> = Rc::new(RefCell::new(Some(Box::pin(work))));
    if let Some((locks, request)) = lock_manager() {
        let output = Rc::new(RefCell::new(None));
        let (queued, slot) = (work.clone(), output.clone());
        let callback = Closure::once_into_js(move |_lock: JsValue| -> Promise {
            future_to_promise(async move {
                let work = queued.borrow_mut().take();
                if let Some(work) = work {
                    let done = work.await;
                    *slot.borrow_mut() = Some(done);
                }
                Ok(JsValue::UNDEFINED)
            })
        });
        let held = request.call2(&locks, &name.into(), &callback);
        if let Ok(held) = held.and_then(|p| p.dyn_into::<Promise>()) {
            // Settles after our callback's promise, which never rejects.
            let _ = JsFuture::from(held).await;
        }
        if let Some(done) = output.borrow_mut().take() {
            return done;
        }
    }
    // No lock manager, or it refused the request: run unlocked rather than never.
    let unlocked = work.borrow_mut().take();
    unlocked.expect("the work runs exactly once").await
}

/// `navigator.locks` and its `request` method, in a window or a worker.
fn lock_manager() -> Option<(JsValue, Function)> {
    let navigator = Reflect::get(&js_sys::global(), &"navigator".into()).ok()?;
    let locks = Reflect::get(&navigator, &"locks".into()).ok()?;
    let request = Reflect::get(&locks, &"request".into()).ok()?;
    Some((locks, request.dyn_into().ok()?))
}
