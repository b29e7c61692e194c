//! What every handler shares: configuration, the database, the clock, the rate
//! limiters and the idempotency keys being answered.

use crate::clock::Clock;
use crate::in_flight::InFlight;
use crate::rate_limit::RateLimiters;
use crate::settings::Settings;
use crate::store::Store;
use axum::extract::FromRef;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub rate_limiters: Arc<RateLimiters>,
    /// Requests with one idempotency key (new saves, profile operations, device links)
    /// take turns.
    pub key_turns: Arc<InFlight>,
}

impl AppState {
    pub fn new(settings: Settings, store: Store, clock: Arc<dyn Clock>) -> Self {
        AppState {
            rate_limiters: Arc::new(RateLimiters::new(settings.rate_limits)),
            settings: Arc::new(settings),
            store,
            clock,
            key_turns: Arc::default(),
        }
    }
}

/// The rate-limit middlewares take only the limiters.
impl FromRef<AppState> for Arc<RateLimiters> {
    fn from_ref(state: &AppState) -> Self {
        state.rate_limiters.clone()
    }
}
