//! What both ways of carrying a connection's bytes share (the copying pipe and, on Linux,
//! the splicing one): the counters, the error, and when a connection is done.

use std::io;
use std::sync::atomic::AtomicU64;

use crate::proxy::call::{Call, Direction};

/// Bytes carried so far; read after the connection ends, or when it was cut off.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub up: AtomicU64,
    pub down: AtomicU64,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum PipeError {
    /// Which cap, in words.
    #[error("{0}")]
    Cap(String),
    #[error("{0}")]
    Io(#[from] io::Error),
}

pub(crate) fn cap_error(call: &Call, way: Direction) -> PipeError {
    PipeError::Cap(call.cap_text(way))
}

/// When the pipe is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Until {
    /// A tunnel: both directions have ended (a half-close is legitimate TCP).
    BothEnd,
    /// A forwarded request: the server's answer has ended (it closes after it, since the
    /// request said `Connection: close`), whatever the client still holds open.
    AnswerEnds,
}

/// Runs both directions to `until`.
pub(crate) async fn finish(
    up: impl Future<Output = Result<(), PipeError>>,
    down: impl Future<Output = Result<(), PipeError>>,
    until: Until,
) -> Result<(), PipeError> {
    if until == Until::BothEnd {
        return tokio::try_join!(up, down).map(drop);
    }
    tokio::pin!(up, down);
    let mut up_done = false;
    loop {
        tokio::select! {
            sent = &mut up, if !up_done => {
                sent?;
                up_done = true;
            }
            answered = &mut down => return answered,
        }
    }
}
