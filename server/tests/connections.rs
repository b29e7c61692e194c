//! The listener's bounds over real sockets: slow and idle clients are closed, a flood
//! of idle sockets does not keep others out, a client that stops reading is cut off,
//! shutdown has a deadline, and TLS is served.

mod common;

use common::wire::{self, closed_within};
use common::{Options, TestServer};
use keydo_server::connections::{self, ConnectionLimits};
use std::net::SocketAddr;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpSocket, TcpStream};

const LIMITS: ConnectionLimits = ConnectionLimits {
    max_connections: 16,
    header_timeout: Duration::from_secs(1),
    send_timeout: Duration::from_secs(1),
    shutdown_timeout: Duration::from_secs(1),
};

/// Far beyond every timeout above: a connection still open after this was not closed.
const PATIENCE: Duration = Duration::from_secs(8);

#[tokio::test]
async fn a_client_sending_its_head_slowly_is_closed() {
    let server = TestServer::sqlite().await;
    let address = server.listen_within(LIMITS).await;
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream
        .write_all(format!("GET /api/health HTTP/1.1\r\nHost: {address}\r\n").as_bytes())
        .await
        .unwrap();
    // One header line every 200 ms: bytes keep coming, the head never ends.
    let drip = async {
        for n in 0..40 {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if stream
                .write_all(format!("X-Drip-{n}: 1\r\n").as_bytes())
                .await
                .is_err()
            {
                return n;
            }
        }
        40
    };
    let lines_sent = tokio::time::timeout(PATIENCE, drip).await.unwrap();
    assert!(lines_sent < 40, "the server kept reading the head for 8 s");
    assert!(
        closed_within(&mut stream, PATIENCE).await.is_some(),
        "the connection stayed open"
    );
}

#[tokio::test]
async fn idle_connections_are_closed_new_and_kept_alive_alike() {
    let server = TestServer::sqlite().await;
    let address = server.listen_within(LIMITS).await;
    let mut silent = TcpStream::connect(address).await.unwrap();
    let mut kept_alive = TcpStream::connect(address).await.unwrap();
    let answer = wire::exchange(
        &mut kept_alive,
        &wire::request(address, "/api/health", "keep-alive"),
    )
    .await;
    assert_eq!(answer.status, 200);
    for stream in [&mut silent, &mut kept_alive] {
        let closed = closed_within(stream, PATIENCE).await;
        assert!(closed.is_some(), "an idle connection stayed open");
    }
}

#[tokio::test]
async fn a_flood_of_idle_sockets_does_not_keep_health_checks_out() {
    let server = TestServer::sqlite().await;
    let address = server.listen_within(LIMITS).await;
    // Two and a half times the cap, all silent.
    let mut flood = Vec::new();
    for _ in 0..40 {
        flood.push(TcpStream::connect(address).await.unwrap());
    }
    let health = tokio::time::timeout(PATIENCE, wire::get(address, "/api/health"))
        .await
        .expect("/api/health answered while the flood lasted");
    assert_eq!(health.status, 200);
    // Every flooding socket was closed by the server, none was served forever.
    for stream in &mut flood {
        assert!(closed_within(stream, PATIENCE).await.is_some());
    }
}

#[tokio::test]
async fn a_client_that_stops_reading_a_large_file_is_cut_off() {
    let server = TestServer::sqlite().await;
    let size = 32 * 1024 * 1024;
    std::fs::write(server.dist().join("big.bin"), vec![7u8; size]).unwrap();
    let address = server.listen_within(LIMITS).await;
    let socket = TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    stream
        .write_all(wire::request(address, "/big.bin", "close").as_bytes())
        .await
        .unwrap();
    // Read nothing while the server's writes stall, then drain what is buffered.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut received = 0;
    let drained = tokio::time::timeout(PATIENCE, async {
        let mut buffer = vec![0; 65536];
        loop {
            match tokio::io::AsyncReadExt::read(&mut stream, &mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received += n,
            }
        }
    })
    .await;
    assert!(drained.is_ok(), "the connection was not closed");
    assert!(
        received < size,
        "all {received} bytes arrived: the stalled response was not cut off"
    );
}

#[tokio::test]
async fn shutdown_finishes_within_its_deadline_despite_a_stalled_request() {
    let server = TestServer::start(Options {
        request_timeout: Duration::from_secs(60),
        ..Options::default()
    })
    .await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(connections::serve(
        listener,
        server.router.clone(),
        LIMITS,
        None,
        async {
            let _ = stopped.await;
        },
    ));
    // A request whose body never comes: in flight until the deadline.
    let mut stalled = TcpStream::connect(address).await.unwrap();
    let head = format!(
        "POST /api/saves HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{"
    );
    stalled.write_all(head.as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).unwrap();
    tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("serve returned after its shutdown deadline")
        .unwrap();
    assert!(
        TcpStream::connect(address).await.is_err(),
        "still accepting"
    );
}

/// A certificate authority and a certificate for 127.0.0.1 signed by it, made with
/// the `openssl` command: (ca.pem, cert.pem, key.pem).
fn certificates(dir: &std::path::Path) -> [std::path::PathBuf; 3] {
    let path = |name: &str| dir.join(name);
    let run = |args: &[&str]| {
        let status = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("the openssl command");
        assert!(status.success(), "openssl {args:?}");
    };
    run(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=test CA",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
    ]);
    run(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "cert.csr",
    ]);
    std::fs::write(
        path("ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .unwrap();
    run(&[
        "x509",
        "-req",
        "-in",
        "cert.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-days",
        "1",
        "-out",
        "cert.pem",
        "-extfile",
        "ext",
    ]);
    [path("ca.pem"), path("cert.pem"), path("key.pem")]
}

#[tokio::test]
async fn tls_is_served_with_the_given_certificate() {
    let dir = tempfile::TempDir::new().unwrap();
    let [ca, cert, key] = certificates(dir.path());
    let acceptor = keydo_server::tls::acceptor(&cert, &key).unwrap();
    let server = TestServer::sqlite().await;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(connections::serve(
        listener,
        server.router.clone(),
        LIMITS,
        Some(acceptor),
        std::future::pending(),
    ));

    let mut roots = rustls::RootCertStore::empty();
    for certificate in keydo_server::tls::certificates(&ca).unwrap() {
        roots.add(certificate).unwrap();
    }
    let config = rustls::ClientConfig::builder_with_provider(keydo_server::tls::provider())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = TcpStream::connect(address).await.unwrap();
    let name = rustls::pki_types::ServerName::try_from("127.0.0.1").unwrap();
    let mut tls = connector.connect(name, tcp).await.unwrap();
    let answer = wire::exchange(&mut tls, &wire::request(address, "/api/health", "close")).await;
    assert_eq!(answer.status, 200);
    assert!(answer.head.contains("content-security-policy: "));

    // Plain HTTP on the TLS port is not served.
    let mut plain = TcpStream::connect(address).await.unwrap();
    plain
        .write_all(wire::request(address, "/api/health", "close").as_bytes())
        .await
        .unwrap();
    let mut buffer = [0; 64];
    let read = tokio::io::AsyncReadExt::read(&mut plain, &mut buffer).await;
    assert!(
        !matches!(read, Ok(n) if buffer[..n].starts_with(b"HTTP/1.1 200")),
        "plain HTTP was answered"
    );
}
