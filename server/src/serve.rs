//! `keydo-server serve`: opens the database, binds, serves until SIGINT/SIGTERM,
//! then lets in-flight requests finish.

use crate::cli::ServeArgs;
use crate::clock::SystemClock;
use crate::router;
use crate::state::AppState;
use crate::store::{Location, Store};
use axum::serve::ListenerExt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

/// How often rate limiters forget clients that have been quiet for a while.
const FORGET_IDLE_CLIENTS_EVERY: Duration = Duration::from_secs(60);

pub async fn run(args: ServeArgs) -> anyhow::Result<()> {
    let location = Location::new(
        &args.database.data_dir,
        args.database.database_url.as_deref(),
    )?;
    let store = tokio::task::spawn_blocking(move || Store::open(&location)).await??;
    let state = AppState::new(args.settings(), store, Arc::new(SystemClock));
    tokio::spawn(forget_idle_clients(state.clone()));

    let listener = TcpListener::bind(args.addr).await?;
    tracing::info!(addr = %listener.local_addr()?, dist = %args.dist.display(), "listening");
    // Files are written as headers then body; with Nagle's algorithm the body would
    // wait for the client's delayed ACK (~40 ms) on every response.
    let listener = listener.tap_io(|connection| {
        if let Err(error) = connection.set_nodelay(true) {
            tracing::warn!(cause = %error, "could not set TCP_NODELAY");
        }
    });
    let app = router::build(state).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await?;
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
    tracing::info!("shutting down; finishing in-flight requests");
}
