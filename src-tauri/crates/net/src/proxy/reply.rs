//! The proxy's own answers. A refusal says in its body which host and which rule, in one
//! line: the agent reads it (curl shows it with `-v`, a plain-HTTP client shows it whole).

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// After a refusal, how much of what the client still sends is read and dropped, and for how
/// long: closing with unread bytes makes the kernel reset the connection, and the client
/// may then lose the answer before reading it.
const DRAIN_BYTES: usize = 256 * 1024;
const DRAIN_TIME: Duration = Duration::from_millis(500);

/// The reason phrase for the statuses the proxy answers with itself.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "Connection established",
        400 => "Bad Request",
        403 => "Forbidden",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        431 => "Request Header Fields Too Large",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Error",
    }
}

/// `HTTP/1.1 200 Connection established`, the tunnel's start.
pub(crate) const ESTABLISHED: &[u8] = b"HTTP/1.1 200 Connection established\r\n\r\n";

/// A complete refusal: status line, a text body saying why, and `Connection: close`.
pub(crate) fn refusal(status: u16, why: &str) -> Vec<u8> {
    let body = format!("Paddock's network fence: {why}\n");
    format!(
        "HTTP/1.1 {status} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        reason(status),
        body.len()
    )
    .into_bytes()
}

/// Writes `bytes` and flushes within `timeout` (a client that never reads does not hold the
/// task). Errors are the client's problem: it gets what it gets.
pub(crate) async fn send<W: AsyncWrite + Unpin>(writer: &mut W, bytes: &[u8], timeout: Duration) {
    let write = async {
        writer.write_all(bytes).await?;
        writer.flush().await
    };
    if let Ok(Err(e)) = tokio::time::timeout(timeout, write).await {
        tracing::debug!("writing the proxy's answer: {e}");
    }
}

/// Sends a refusal, then closes gently: the write side first, then what the client still
/// sends is read and dropped (bounded by `DRAIN_BYTES` and `DRAIN_TIME`).
pub(crate) async fn refuse_and_close<S>(client: &mut S, bytes: &[u8], timeout: Duration)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    send(client, bytes, timeout).await;
    let drain = async {
        let _ = client.shutdown().await;
        let mut buf = [0u8; 8192];
        let mut drained = 0;
        while drained < DRAIN_BYTES {
            match client.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => drained += n,
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_TIME.min(timeout), drain).await;
}
