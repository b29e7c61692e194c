//! Watches what fills the disk: the review queue's size and the database's, read every
//! [`WATCH_EVERY`] into the metrics next to their alert thresholds, with a warning in
//! the log while either is at or above its threshold (docs/operations.md, "Alerts").

use crate::metrics::metrics;
use crate::settings::Alerts;
use crate::store::{Capacity, Store, StoreError};
use std::time::Duration;

/// How often the sizes are read.
pub const WATCH_EVERY: Duration = Duration::from_secs(60);

/// Reads the sizes every [`WATCH_EVERY`], for as long as the server runs.
pub async fn watch(store: Store, alerts: Alerts) {
    let mut every = tokio::time::interval(WATCH_EVERY);
    loop {
        every.tick().await;
        if let Err(error) = refresh(&store, alerts).await {
            tracing::warn!(cause = %error, "could not read the review queue's and the database's size");
        }
    }
}

/// Reads the sizes once into the metrics, warning at or above a threshold.
pub async fn refresh(store: &Store, alerts: Alerts) -> Result<Capacity, StoreError> {
    let capacity = store.capacity().await?;
    metrics().capacity(
        capacity.held_results,
        capacity.database_bytes,
        (alerts.held_results, alerts.database_bytes),
    );
    if capacity.held_results >= alerts.held_results {
        tracing::warn!(
            held = capacity.held_results,
            alert = alerts.held_results,
            "the review queue is at its alert threshold: review or raise --alert-review-queue"
        );
    }
    if capacity.database_bytes >= alerts.database_bytes {
        tracing::warn!(
            bytes = capacity.database_bytes,
            alert = alerts.database_bytes,
            "the database is at its alert size: check what fills it before the disk does"
        );
    }
    Ok(capacity)
}
