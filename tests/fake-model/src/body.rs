//! The streamed response body: frames sent one by one, with drip delays and faults, and
//! a record of how the stream ended.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::Frame;

use crate::record::Outcome;
use crate::server::State;

pub(crate) type Body = UnsyncBoxBody<Bytes, std::io::Error>;

/// Marks a response whose body is played out over time: its outcome is recorded when the
/// body ends, not when the response is sent.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Played;

/// What happens once the frames are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    Complete,
    Drop,
    Hang,
}

pub(crate) fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into())
        .map_err(|never: Infallible| match never {})
        .boxed_unsync()
}

/// Sets the request's outcome when the body ends or is dropped (the client hung up).
struct Guard {
    state: Arc<State>,
    index: usize,
    outcome: Outcome,
}

impl Guard {
    fn set(&mut self, outcome: Outcome) {
        self.outcome = outcome;
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        self.state.set_outcome(self.index, self.outcome);
    }
}

struct Playback {
    frames: std::vec::IntoIter<String>,
    drip: Option<Duration>,
    ending: Ending,
    /// The drop fault fired: the stream is over.
    failed: bool,
    guard: Guard,
}

pub(crate) fn streaming(
    state: Arc<State>,
    index: usize,
    frames: Vec<String>,
    drip: Option<Duration>,
    ending: Ending,
) -> Body {
    let playback = Playback {
        frames: frames.into_iter(),
        drip,
        ending,
        failed: false,
        guard: Guard {
            state,
            index,
            outcome: Outcome::ClientClosed,
        },
    };
    let stream = futures_util::stream::unfold(playback, |mut p| async move {
        if p.failed {
            return None;
        }
        if let Some(frame) = p.frames.next() {
            if let Some(d) = p.drip {
                tokio::time::sleep(d).await;
            }
            return Some((Ok(Frame::data(Bytes::from(frame))), p));
        }
        match p.ending {
            Ending::Complete => {
                p.guard.set(Outcome::Completed);
                None
            }
            Ending::Drop => {
                // Let the connection flush what was sent, then fail the body: hyper then
                // closes the connection without finishing the chunked encoding.
                tokio::task::yield_now().await;
                tokio::time::sleep(Duration::from_millis(20)).await;
                p.guard.set(Outcome::ServerDropped);
                p.failed = true;
                let err = std::io::Error::new(std::io::ErrorKind::ConnectionAborted, "fault: drop");
                Some((Err(err), p))
            }
            Ending::Hang => futures_util::future::pending().await,
        }
    });
    BodyExt::boxed_unsync(StreamBody::new(stream))
}
