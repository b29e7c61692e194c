//! What every handler shares: configuration, the database, the clock, the rate
//! limiters and the idempotency keys being answered.

use crate::api::in_flight::InFlight;
use crate::clock::Clock;
use crate::rate_limit::RateLimiters;
use crate::settings::Settings;
use crate::store::Store;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub settings: Arc<Settings>,
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub rate_limiters: Arc<RateLimiters>,
    /// Requests with one key (profile operations, device links) take turns.
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
