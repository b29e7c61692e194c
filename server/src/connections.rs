//! The listener: accepts TCP connections (and TLS, when configured) and serves HTTP/1.1
//! on each, within bounds, so that no client can hold the server's resources for long:
//!
//! - at most `max_connections` at once; beyond that, new connections wait in the
//!   kernel's accept queue until one closes;
//! - a request's head must arrive within `header_timeout`, counted from when the
//!   server starts waiting for it: on a new connection, and again after each response,
//!   so it also closes idle keep-alive connections (hyper's `header_read_timeout`);
//!   the TLS handshake has the same time;
//! - a response whose client stops reading for `send_timeout` is abandoned (a slow
//!   reader of a large file), see [`SendTimeout`];
//! - on shutdown, no new connections; in-flight requests finish and idle connections
//!   close, for at most `shutdown_timeout`.
//!
//! Each request carries the peer's address as axum's `ConnectInfo`.

use crate::metrics::metrics;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Sleep;
use tokio_rustls::TlsAcceptor;
use tower::ServiceExt;

/// The bounds on connections.
#[derive(Debug, Clone, Copy)]
pub struct ConnectionLimits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub send_timeout: Duration,
    pub shutdown_timeout: Duration,
}

/// After a failed `accept` (out of file descriptors...), before trying again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Serves `app` on `listener` until `shutdown` resolves, then drains connections.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnectionLimits,
    tls: Option<TlsAcceptor>,
    shutdown: impl Future<Output = ()>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    tokio::pin!(shutdown);
    loop {
        if permits.available_permits() == 0 {
            metrics().connections_at_cap();
        }
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => permit.expect("the semaphore is never closed"),
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::warn!(cause = %error, "accepting a connection failed");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        // Files are written as headers then body; with Nagle's algorithm the body would
        // wait for the client's delayed ACK (~40 ms) on every response.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(cause = %error, "could not set TCP_NODELAY");
        }
        let service = TowerToHyperService::new(app.clone().map_request(
            move |mut request: hyper::Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            },
        ));
        let (http, watcher, tls) = (http.clone(), graceful.watcher(), tls.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let _open = metrics().connection_opened();
            let stream = SendTimeout::new(stream, limits.send_timeout);
            let served = match tls {
                None => {
                    watcher
                        .watch(http.serve_connection(TokioIo::new(stream), service))
                        .await
                }
                Some(tls) => {
                    let handshake =
                        tokio::time::timeout(limits.header_timeout, tls.accept(stream)).await;
                    match handshake {
                        Ok(Ok(stream)) => {
                            watcher
                                .watch(http.serve_connection(TokioIo::new(stream), service))
                                .await
                        }
                        Ok(Err(error)) => {
                            return tracing::debug!(%peer, cause = %error, "TLS handshake failed");
                        }
                        Err(_) => return tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                }
            };
            if let Err(error) = served {
                // Timeouts and clients that go away: routine, not worth a warning.
                tracing::debug!(%peer, cause = %error, "connection ended with an error");
            }
        });
    }
    drop(listener);
    tracing::info!(
        open = graceful.count(),
        "shutting down; finishing in-flight requests"
    );
    tokio::select! {
        () = graceful.shutdown() => tracing::info!("every connection closed"),
        () = tokio::time::sleep(limits.shutdown_timeout) => tracing::warn!(
            timeout_secs = limits.shutdown_timeout.as_secs_f64(),
            "connections still open at the shutdown deadline are dropped"
        ),
    }
}

/// A connection whose writes fail once the peer has accepted no bytes for `timeout`.
///
/// hyper bounds how long a request takes to arrive, but not how long a response takes
/// to leave: a client that stops reading would hold its connection (and its slot
/// under the cap) forever.
pub struct SendTimeout<I> {
    io: I,
    timeout: Duration,
    stalled_since: Option<Pin<Box<Sleep>>>,
}

impl<I> SendTimeout<I> {
    pub fn new(io: I, timeout: Duration) -> Self {
        SendTimeout {
            io,
            timeout,
            stalled_since: None,
        }
    }

    /// Called when a write could not proceed: `Ready` with an error once stalled too
    /// long, else `Pending` (woken by the inner I/O or by the timer).
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let timeout = self.timeout;
        let deadline = self
            .stalled_since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client stopped reading the response",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn progressed<T>(
        &mut self,
        result: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        match result {
            Poll::Pending => self.stalled(cx),
            ready => {
                self.stalled_since = None;
                ready
            }
        }
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for SendTimeout<I> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for SendTimeout<I> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write(cx, buf);
        this.progressed(result, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.progressed(result, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_flush(cx);
        this.progressed(result, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_shutdown(cx);
        this.progressed(result, cx)
    }
}
