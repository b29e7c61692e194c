//! HTTP/1.1 spoken by hand over a socket, for tests about connections themselves
//! (timeouts, caps, TLS) where a client library would hide what happens.

use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

/// A response as read off the wire.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    /// The head, lowercased, for `contains` checks.
    pub head: String,
    pub body: Vec<u8>,
}

/// `GET path` on a fresh connection that the request closes.
pub async fn get(address: SocketAddr, path: &str) -> Answer {
    let mut stream = TcpStream::connect(address).await.unwrap();
    exchange(&mut stream, &request(address, path, "close")).await
}

/// The bytes of a GET request.
pub fn request(address: SocketAddr, path: &str, connection: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: {connection}\r\n\r\n")
}

/// Sends `request` and reads one response with a `Content-Length` (at most 10 s).
pub async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, request: &str) -> Answer {
    stream.write_all(request.as_bytes()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), read_answer(stream))
        .await
        .expect("an answer within 10 s")
}

async fn read_answer<S: AsyncRead + Unpin>(stream: &mut S) -> Answer {
    let mut received = Vec::new();
    let mut buffer = [0; 8192];
    let head_end = loop {
        if let Some(end) = received.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the connection closed before a response head");
        received.extend_from_slice(&buffer[..n]);
    };
    let head = String::from_utf8_lossy(&received[..head_end]).to_ascii_lowercase();
    let status = head[9..12].parse().unwrap();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length: "))
        .map_or(0, |length| length.trim().parse().unwrap());
    let mut body = received[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "the connection closed inside a body");
        body.extend_from_slice(&buffer[..n]);
    }
    Answer { status, head, body }
}

/// Reads until the peer closes (EOF or reset), discarding data; how long that took,
/// or `None` if it stayed open for `within`.
pub async fn closed_within<S: AsyncRead + Unpin>(
    stream: &mut S,
    within: Duration,
) -> Option<Duration> {
    let started = tokio::time::Instant::now();
    tokio::time::timeout(within, async {
        let mut buffer = [0; 8192];
        while let Ok(n) = stream.read(&mut buffer).await {
            if n == 0 {
                break;
            }
        }
    })
    .await
    .ok()
    .map(|()| started.elapsed())
}
