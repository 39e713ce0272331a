//! Carrying bytes both ways between the client and the server, counted as they go and
//! charged to the call's byte cap. Each direction ends on its own (a half-close is passed
//! on), the connection when both have, or at once when either fails or the cap is reached.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::proxy::call::{Call, Direction};
use crate::proxy::carry::{Counters, PipeError, Until, cap_error, finish};
use crate::proxy::stream::ProxyStream;
#[cfg(target_os = "linux")]
use crate::proxy::stream::SpliceSocket;

/// Bytes copied at a time in each direction, where the bytes cannot be spliced.
pub const PIPE_BUFFER: usize = 64 * 1024;

/// Sends `bytes` upstream before the pipe starts (the rewritten head, early data), counted
/// and charged like the rest.
pub(crate) async fn send_first<W: AsyncWrite + Unpin>(
    upstream: &mut W,
    bytes: &[u8],
    count: &AtomicU64,
    call: &Call,
) -> Result<(), PipeError> {
    let allowed =
        usize::try_from(call.spend(Direction::Up, bytes.len() as u64)).unwrap_or(bytes.len());
    upstream.write_all(&bytes[..allowed]).await?;
    count.fetch_add(allowed as u64, Ordering::Relaxed);
    if allowed < bytes.len() {
        return Err(cap_error(call, Direction::Up));
    }
    Ok(())
}

/// Carries both ways until `until`, or the first failure: zero-copy where the client is a
/// socket on Linux, else through a buffer.
pub(crate) async fn pipe<C: ProxyStream>(
    client: &mut C,
    upstream: TcpStream,
    counters: &Counters,
    call: &Call,
    until: Until,
) -> Result<(), PipeError> {
    #[cfg(target_os = "linux")]
    if let Some(SpliceSocket(socket)) = client.splice_socket() {
        return crate::proxy::stream::splice::pipe(socket, &upstream, counters, call, until).await;
    }
    let (client_read, client_write) = tokio::io::split(client);
    let (upstream_read, upstream_write) = tokio::io::split(upstream);
    let up = copy_one(
        client_read,
        upstream_write,
        &counters.up,
        call,
        Direction::Up,
    );
    let down = copy_one(
        upstream_read,
        client_write,
        &counters.down,
        call,
        Direction::Down,
    );
    finish(up, down, until).await
}

async fn copy_one<R, W>(
    mut reader: R,
    mut writer: W,
    count: &AtomicU64,
    call: &Call,
    way: Direction,
) -> Result<(), PipeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buf = vec![0u8; PIPE_BUFFER];
    loop {
        let n = reader.read(&mut buf).await?;
        if n == 0 {
            // Pass the half-close on; the other direction may still have bytes to carry.
            let _ = writer.shutdown().await;
            return Ok(());
        }
        let allowed = usize::try_from(call.spend(way, n as u64)).unwrap_or(n);
        writer.write_all(&buf[..allowed]).await?;
        count.fetch_add(allowed as u64, Ordering::Relaxed);
        if allowed < n {
            let _ = writer.flush().await;
            return Err(cap_error(call, way));
        }
    }
}
