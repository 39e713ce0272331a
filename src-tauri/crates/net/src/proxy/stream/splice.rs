//! Zero-copy carrying on Linux: `splice(2)` moves a socket's bytes into a pipe and from the
//! pipe into the other socket without copying them through the proxy's memory, which on
//! loopback is most of a proxy's cost. Same contract as the copying pipe: counted, charged
//! to the byte cap (never more than it carried), half-closes passed on.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::net::Shutdown;
use rustix::pipe::{PipeFlags, SpliceFlags, fcntl_setpipe_size, pipe_with, splice};
use tokio::io::Interest;
use tokio::net::TcpStream;

use crate::proxy::call::{Call, Direction};
use crate::proxy::carry::{Counters, PipeError, Until, cap_error, finish};
use crate::proxy::stream::SocketRef;

/// Bytes moved per splice, and the pipe's size (best effort: the kernel may refuse).
const SPLICE_CHUNK: usize = 1024 * 1024;
/// Chunks carried between checks of the task's cooperative budget.
const YIELD_EVERY: u32 = 16;

impl SocketRef<'_> {
    fn fd(&self) -> BorrowedFd<'_> {
        match self {
            SocketRef::Tcp(s) => s.as_fd(),
            SocketRef::Unix(s) => s.as_fd(),
        }
    }

    async fn ready(&self, interest: Interest) -> io::Result<()> {
        match self {
            SocketRef::Tcp(s) => s.ready(interest).await.map(drop),
            SocketRef::Unix(s) => s.ready(interest).await.map(drop),
        }
    }

    /// Runs `f` as an I/O attempt: a `WouldBlock` clears the readiness for the next wait.
    fn attempt<R>(&self, interest: Interest, f: impl FnOnce() -> io::Result<R>) -> io::Result<R> {
        match self {
            SocketRef::Tcp(s) => s.try_io(interest, f),
            SocketRef::Unix(s) => s.try_io(interest, f),
        }
    }
}

/// Carries both ways between `client` and `upstream` until `until`.
pub(crate) async fn pipe(
    client: SocketRef<'_>,
    upstream: &TcpStream,
    counters: &Counters,
    call: &Call,
    until: Until,
) -> Result<(), PipeError> {
    let upstream = SocketRef::Tcp(upstream);
    let up = one_way(client, upstream, &counters.up, call, Direction::Up);
    let down = one_way(upstream, client, &counters.down, call, Direction::Down);
    finish(up, down, until).await
}

async fn one_way(
    from: SocketRef<'_>,
    to: SocketRef<'_>,
    count: &AtomicU64,
    call: &Call,
    way: Direction,
) -> Result<(), PipeError> {
    // Non-blocking pipe ends: a splice never blocks a worker thread.
    let (pipe_out, pipe_in) =
        pipe_with(PipeFlags::CLOEXEC | PipeFlags::NONBLOCK).map_err(io::Error::from)?;
    let _ = fcntl_setpipe_size(&pipe_in, SPLICE_CHUNK);
    let flags = SpliceFlags::MOVE | SpliceFlags::NONBLOCK;
    let mut chunks = 0u32;
    loop {
        let moved = loop {
            if call.remaining(way) == 0 {
                return Err(cap_error(call, way));
            }
            // Never more than the cap leaves; a race with another connection is settled
            // by `spend` below, which may carry fewer than were moved into the pipe.
            let room =
                usize::try_from(call.remaining(way)).map_or(SPLICE_CHUNK, |r| r.min(SPLICE_CHUNK));
            // Tried first and waited for only when the socket has nothing: one readiness
            // round trip less per chunk.
            let attempt = from.attempt(Interest::READABLE, || {
                Ok(splice(from.fd(), None, &pipe_in, None, room, flags)?)
            });
            match attempt {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    from.ready(Interest::READABLE).await?;
                }
                Err(e) => return Err(e.into()),
            }
        };
        if moved == 0 {
            // Pass the half-close on; the other direction may still have bytes to carry.
            let _ = rustix::net::shutdown(to.fd(), Shutdown::Write);
            return Ok(());
        }
        let allowed = usize::try_from(call.spend(way, moved as u64)).unwrap_or(moved);
        let mut left = allowed;
        while left > 0 {
            let attempt = to.attempt(Interest::WRITABLE, || {
                Ok(splice(&pipe_out, None, to.fd(), None, left, flags)?)
            });
            match attempt {
                Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero).into()),
                Ok(n) => left -= n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    to.ready(Interest::WRITABLE).await?;
                }
                Err(e) => return Err(e.into()),
            }
        }
        count.fetch_add(allowed as u64, Ordering::Relaxed);
        if allowed < moved {
            return Err(cap_error(call, way));
        }
        // A busy tunnel that never waits still lets the worker's other tasks run (not
        // after every chunk: that costs a few per cent of throughput).
        chunks = chunks.wrapping_add(1);
        if chunks.is_multiple_of(YIELD_EVERY) {
            tokio::task::consume_budget().await;
        }
    }
}
