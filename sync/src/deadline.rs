//! A bounded wait for one request: an `AbortController` whose signal fires after a
//! fixed time, in a page or a worker alike (through the global `setTimeout`).

use js_sys::{Function, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, AbortSignal};

/// Aborts its signal `ms` after [`Deadline::start`]; dropping it cancels the timer.
pub(crate) struct Deadline {
    controller: AbortController,
    timer: JsValue,
    // Held so the timer's callback lives as long as the timer.
    _abort: Closure<dyn FnMut()>,
}

impl Deadline {
    pub(crate) fn start(ms: u64) -> Result<Deadline, JsValue> {
        let controller = AbortController::new()?;
        let to_abort = controller.clone();
        let abort = Closure::<dyn FnMut()>::new(move || to_abort.abort());
        let timer = global_function("setTimeout")?.call2(
            &js_sys::global(),
            abort.as_ref(),
            &JsValue::from_f64(ms as f64),
        )?;
        Ok(Deadline {
            controller,
            timer,
            _abort: abort,
        })
    }

    /// The signal to hand to the request.
    pub(crate) fn signal(&self) -> AbortSignal {
        self.controller.signal()
    }

    /// Whether the time is up (and the signal aborted).
    pub(crate) fn expired(&self) -> bool {
        self.controller.signal().aborted()
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let Ok(clear) = global_function("clearTimeout") {
            let _ = clear.call1(&js_sys::global(), &self.timer);
        }
    }
}

fn global_function(name: &str) -> Result<Function, JsValue> {
    Reflect::get(&js_sys::global(), &name.into())?.dyn_into()
}

#[cfg(all(test, target_arch = "wasm32"))]
mod tests {
    use super::*;
    use wasm_bindgen_futures::JsFuture;
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    /// Resolves after `ms`.
    async fn sleep(ms: i32) {
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let _ = global_function("setTimeout").unwrap().call2(
                &js_sys::global(),
                &resolve,
                &ms.into(),
            );
        });
        JsFuture::from(promise).await.unwrap();
    }

    #[wasm_bindgen_test]
    async fn the_signal_aborts_when_the_time_is_up_and_not_before() {
        let deadline = Deadline::start(50).unwrap();
        let signal = deadline.signal();
        assert!(!signal.aborted() && !deadline.expired());
        sleep(150).await;
        assert!(signal.aborted() && deadline.expired());
    }

    #[wasm_bindgen_test]
    async fn a_dropped_deadline_never_fires() {
        let deadline = Deadline::start(50).unwrap();
        let signal = deadline.signal();
        drop(deadline);
        sleep(150).await;
        assert!(!signal.aborted());
    }
}
