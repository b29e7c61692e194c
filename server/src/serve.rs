//! `keydo-server serve`: checks the configuration, opens the database, binds (and the
//! metrics address, when asked), serves until SIGINT/SIGTERM, then lets in-flight
//! requests finish within the shutdown deadline.

use crate::cli::ServeArgs;
use crate::clock::SystemClock;
use crate::state::AppState;
use crate::store::{Location, Store};
use crate::{capacity, connections, metrics, router, tls};
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// How often rate limiters forget clients that have been quiet for a while.
const FORGET_IDLE_CLIENTS_EVERY: Duration = Duration::from_secs(60);

/// How often the rank deltas are folded into the counts: a rank read sums the deltas
/// not folded yet, so their number stays about one second of board changes.
const FOLD_RANK_DELTAS_EVERY: Duration = Duration::from_secs(1);

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let settings = args.settings()?;
    let tls = match (&args.tls.tls_cert, &args.tls.tls_key) {
        (Some(cert), Some(key)) => Some(tls::acceptor(cert, key)?),
        _ => None,
    };
    let location = Location::new(
        &args.database.data_dir,
        args.database.database_url.as_deref(),
    )?;
    let store_options = args.store_options();
    let store =
        tokio::task::spawn_blocking(move || Store::open_with(&location, &store_options)).await??;
    let state = AppState::new(settings, store, Arc::new(SystemClock));
    tokio::spawn(forget_idle_clients(state.clone()));
    tokio::spawn(capacity::watch(state.store.clone(), state.settings.alerts));
    tokio::spawn(fold_rank_deltas(state.store.clone()));

    if let Some(metrics_addr) = args.metrics_addr {
        let listener = TcpListener::bind(metrics_addr).await?;
        tracing::info!(addr = %listener.local_addr()?, "metrics at /metrics");
        tokio::spawn(async move {
            if let Err(error) = metrics::serve(listener).await {
                tracing::error!(cause = %error, "the metrics listener stopped");
            }
        });
    }

    let listener = TcpListener::bind(args.addr).await?;
    tracing::info!(
        addr = %listener.local_addr()?,
        dist = %args.dist.display(),
        tls = tls.is_some(),
        "listening"
    );
    connections::serve(
        listener,
        router::build(state),
        args.connection_limits(),
        tls,
        shutdown_signal(),
    )
    .await;
    tracing::info!("stopped");
    Ok(())
}

async fn forget_idle_clients(state: AppState) {
    let mut every = tokio::time::interval(FORGET_IDLE_CLIENTS_EVERY);
    loop {
        every.tick().await;
        state.rate_limiters.forget_idle_clients();
    }
}

/// The rank counts' sweeper (docs/operations.md, "Ranks at a million"). Every server runs one;
/// they share the work safely, each delta folded by one of them.
async fn fold_rank_deltas(store: Store) {
    let mut every = tokio::time::interval(FOLD_RANK_DELTAS_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = store.fold_rank_deltas().await {
            tracing::warn!(cause = %error, "could not fold the rank deltas into their counts");
        }
    }
}

/// Resolves on the first SIGINT (Ctrl-C) or SIGTERM (what service managers send).
async fn shutdown_signal() {
    let interrupt = async {
        tokio::signal::ctrl_c()
            .await
            .expect("installing the SIGINT handler");
    };
    let terminate = async {
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("installing the SIGTERM handler")
            .recv()
            .await;
    };
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
