//! Code the first keystroke does not need, loaded when it is first shown
//! (docs/performance.md, "What loads first").
//!
//! A function marked `wasm_split(<module>, fallible)` is cut out of the page's wasm
//! by the build into a module of its own, fetched (from the service worker's
//! precache when offline) on its first call. Leptos' own `#[lazy]` is the same
//! mark without `fallible`: a failed fetch would abort the whole page, game
//! included. Here a failed load shows a line saying so and is tried again, at
//! growing intervals, while the game plays on.
//!
//! What loads on its own (the panels, the result screen's module) waits for
//! [`GameDrawn`]: nothing it fetches or compiles comes before the game a player types in.
//! So do the styles of what loads on demand ([`on_demand_styles`]): fetched apart, with
//! the first view loaded on demand, which waits for them, and joined to the page's own
//! sheet.

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use std::future::Future;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen_futures::JsFuture;
pub use wasm_split_helpers::SplitLoaderError;

/// The first retry's delay; each failure doubles it, up to [`MAX_RETRY_DELAY`].
const FIRST_RETRY_DELAY: Duration = Duration::from_secs(1);
const MAX_RETRY_DELAY: Duration = Duration::from_secs(60);

/// The delay before the attempt that follows `failures` failed ones.
fn retry_delay(failures: u32) -> Duration {
    FIRST_RETRY_DELAY
        .saturating_mul(1 << failures.min(16))
        .min(MAX_RETRY_DELAY)
}

/// Whether the game is drawn, ready for a key (or what stands in its place: the
/// texts' error, a board entry's replay). Provided by the app, marked by the game.
#[derive(Clone, Copy)]
pub struct GameDrawn(RwSignal<bool>);

impl GameDrawn {
    /// A new one, not drawn yet, provided to the components below.
    pub fn provide() -> GameDrawn {
        let drawn = GameDrawn(RwSignal::new(false));
        provide_context(drawn);
        drawn
    }

    /// Marks it drawn once the view being built is on screen: after the frame that
    /// paints it. An effect runs once its component is rendered; the next frame lays
    /// it out (the prompt's lines are drawn in that frame's resize observation) and
    /// paints it, and a task queued from that frame's animation callback runs after
    /// the paint. So what waits for it never delays the game's first frame.
    pub fn mark_when_rendered(self) {
        Effect::new(move || {
            if !self.0.get_untracked() {
                request_animation_frame(move || {
                    set_timeout(
                        move || {
                            if self.0.try_get_untracked() == Some(false) {
                                self.0.set(true);
                            }
                        },
                        Duration::ZERO,
                    );
                });
            }
        });
    }

    /// Runs `then` once, in a task of its own queued when it is drawn (at once if it
    /// is already): each waiter's fetches and compiles are a short task of their own,
    /// not one long task that holds a key back (docs/performance.md, "What loads first").
    pub fn then(self, then: impl FnOnce() + 'static) {
        self.then_boxed(Box::new(then));
    }

    /// [`GameDrawn::then`], its effect built once for every caller: the main module
    /// carries one copy instead of one per closure (docs/performance.md).
    fn then_boxed(self, then: Box<dyn FnOnce()>) {
        let mut then = Some(then);
        Effect::new(move || {
            if self.0.get()
                && let Some(then) = then.take()
            {
                set_timeout(then, Duration::ZERO);
            }
        });
    }

    /// False until a task of its own, queued when it is drawn, sets it (reactive).
    pub fn in_own_task(self) -> ReadSignal<bool> {
        let (drawn, set_drawn) = signal(false);
        self.then(move || set_drawn.set(true));
        drawn
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `index.html`'s `keydoStyles`: enables the page's stylesheet for what loads on
    /// demand (`assets/on-demand.css`, held disabled, so not fetched, until then) on
    /// its first call, moves its rules into the page's own sheet once it is in, and
    /// settles then or once it failed to come. After a failure the next call fetches
    /// it again.
    #[wasm_bindgen(catch, js_name = keydoStyles)]
    fn keydo_styles() -> Result<js_sys::Promise, wasm_bindgen::JsValue>;
}

/// Fetches the styles of what loads on demand, unless they are in or coming; the
/// future resolves once they are in. If they cannot be fetched it resolves all the
/// same: what waited shows unstyled rather than not at all, and the next view loaded
/// on demand fetches them again.
fn on_demand_styles() -> impl Future<Output = ()> {
    let settled = keydo_styles().ok().map(JsFuture::from);
    async move {
        if let Some(settled) = settled {
            _ = settled.await;
        }
    }
}

/// What `load` returns once its module is in, trying again after each failed load
/// with the delays [`OnDemand`] waits: for code whose caller waits for its answer
/// (a corpus's reading) instead of drawing a line in its place. Pending while the
/// module cannot be fetched, so nothing that waits on it sees a failure for good.
pub async fn once_loaded<T, F>(load: impl Fn() -> F) -> T
where
    F: Future<Output = Result<T, SplitLoaderError>>,
{
    let mut failures = 0;
    loop {
        match load().await {
            Ok(loaded) => return loaded,
            Err(_) => {
                gloo_timers::future::sleep(retry_delay(failures)).await;
                failures = failures.saturating_add(1);
            }
        }
    }
}

/// Calls `then` once, when `element` first comes into the viewport (at once if it
/// is in it already).
pub fn when_in_view(element: &web_sys::Element, then: impl FnOnce() + 'static) {
    let mut then = Some(then);
    // Owned by the observer's callback (garbage once it is disconnected).
    let seen = Closure::<dyn FnMut(js_sys::Array, web_sys::IntersectionObserver)>::new(
        move |entries: js_sys::Array, observer: web_sys::IntersectionObserver| {
            let in_view = entries.iter().any(|entry| {
                entry
                    .unchecked_into::<web_sys::IntersectionObserverEntry>()
                    .is_intersecting()
            });
            if in_view && let Some(then) = then.take() {
                observer.disconnect();
                then();
            }
        },
    )
    .into_js_value();
    let observer = web_sys::IntersectionObserver::new(seen.unchecked_ref())
        .expect("IntersectionObserver takes a function");
    observer.observe(element);
}

/// Shows what `load` returns once its module is loaded; nothing until then, and a
/// line naming `what` while a failed load waits to be tried again.
#[component]
pub fn OnDemand<L, F>(load: L, what: &'static str) -> impl IntoView
where
    L: Fn() -> F + Send + Sync + 'static,
    F: Future<Output = Result<AnyView, SplitLoaderError>> + 'static,
{
    let (failures, set_failures) = signal(0_u32);
    move || {
        let failed = failures.get();
        let loaded = load();
        // Fetched beside the module (nothing to fetch if they are in already).
        let styled = on_demand_styles();
        // The module's future is the page's only (single-threaded wasm); Suspend
        // asks for Send. No `<Suspense>` around it: a `Suspend` alone draws nothing
        // until its future is ready, all this needs, and Suspense's code stays out
        // of the main module (docs/performance.md, "What loads first").
        Suspend::new(SendWrapper::new(async move {
            let loaded = loaded.await;
            styled.await;
            match loaded {
                Ok(view) => view,
                Err(_) => {
                    set_timeout(move || set_failures.set(failed + 1), retry_delay(failed));
                    view! {
                        <p class="on-demand-error" role="status" data-testid="on-demand-error">
                            {format!("The {what} could not be loaded; trying again.")}
                        </p>
                    }
                    .into_any()
                }
            }
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_back_off_from_a_second_to_a_minute() {
        let delays: Vec<u64> = (0..8).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 32, 60, 60]);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY_DELAY);
    }
}
