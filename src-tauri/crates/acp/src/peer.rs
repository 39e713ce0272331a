//! JSON-RPC 2.0 over a newline-delimited byte stream (ACP's stdio transport), both ways: the
//! peer sends requests and notifications and awaits responses, and hands what the other side
//! sends to the caller as [`Incoming`] messages. One task reads, one writes; a request being
//! handled never stops the reader, so a long prompt can still be cancelled or asked about.
//! Once the other side's stream ends, what was queued is still written ([`Peer::close`] waits
//! for it); only requests of ours fail, since no answer can come.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::codes;

/// Longest line read from the other side; a longer one is refused, not buffered forever.
pub const MAX_LINE_BYTES: usize = 64 * 1024 * 1024;

/// An error answer, or a failure to get one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message} (code {code})")]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(codes::INVALID_PARAMS, message)
    }

    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(codes::INTERNAL_ERROR, message)
    }

    /// The connection closed before an answer came.
    fn closed() -> Self {
        Self::internal("the connection closed before an answer came")
    }

    fn to_json(&self) -> Value {
        let mut e = json!({"code": self.code, "message": self.message});
        if let (Some(data), Some(o)) = (&self.data, e.as_object_mut()) {
            o.insert("data".into(), data.clone());
        }
        e
    }
}

/// What the other side sent that is not an answer to us.
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    Request {
        id: Value,
        method: String,
        params: Value,
    },
    Notification {
        method: String,
        params: Value,
    },
}

/// Our requests waiting for answers, and whether any answer can still come.
#[derive(Default)]
struct Waiting {
    answers: HashMap<u64, oneshot::Sender<Result<Value, RpcError>>>,
    /// The other side's stream ended: a request sent now would wait forever.
    ended: bool,
}

type Pending = Arc<Mutex<Waiting>>;

/// What the writer task is given: a line, or the end (said once all before it is written).
enum Out {
    Line(String),
    Close(oneshot::Sender<()>),
}

/// The sending half of a connection; cheap to share.
pub struct Peer {
    out: mpsc::UnboundedSender<Out>,
    pending: Pending,
    next_id: AtomicU64,
}

/// Starts the reader and writer tasks (on the current tokio runtime) and returns the peer
/// and what the other side sends. The receiver ends when the other side closes its stream.
pub fn connect<R, W>(reader: R, writer: W) -> (Arc<Peer>, mpsc::UnboundedReceiver<Incoming>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out, lines) = mpsc::unbounded_channel();
    let (incoming, received) = mpsc::unbounded_channel();
    let pending: Pending = Arc::default();
    let peer = Arc::new(Peer {
        out: out.clone(),
        pending: pending.clone(),
        next_id: AtomicU64::new(0),
    });
    tokio::spawn(write_lines(writer, lines));
    tokio::spawn(read_lines(reader, out, pending, incoming));
    (peer, received)
}

impl Peer {
    /// Sends a request and waits for its answer.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        {
            let mut waiting = lock(&self.pending);
            if waiting.ended {
                return Err(RpcError::closed());
            }
            waiting.answers.insert(id, tx);
        }
        let sent =
            self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        if !sent {
            lock(&self.pending).answers.remove(&id);
            return Err(RpcError::closed());
        }
        rx.await.unwrap_or_else(|_| Err(RpcError::closed()))
    }

    /// Sends a notification; false when the connection is gone.
    pub fn notify(&self, method: &str, params: Value) -> bool {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Answers the other side's request `id`.
    pub fn respond(&self, id: Value, answer: Result<Value, RpcError>) -> bool {
        let message = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e.to_json()}),
        };
        self.send(&message)
    }

    /// Writes out everything sent so far, then stops writing; what is sent after is dropped.
    /// Returns at once when the other side stopped reading.
    pub async fn close(&self) {
        let (done, written) = oneshot::channel();
        if self.out.send(Out::Close(done)).is_ok() {
            let _ = written.await;
        }
    }

    /// Returns once nothing more can be written: the other side stopped reading (or
    /// [`Peer::close`] was called).
    pub async fn closed(&self) {
        self.out.closed().await;
    }

    fn send(&self, message: &Value) -> bool {
        // serde_json never writes a raw newline inside a value: one message, one line.
        self.out.send(Out::Line(message.to_string())).is_ok()
    }
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut lines: mpsc::UnboundedReceiver<Out>,
) {
    while let Some(next) = lines.recv().await {
        match next {
            Out::Line(mut line) => {
                line.push('\n');
                if writer.write_all(line.as_bytes()).await.is_err() || writer.flush().await.is_err()
                {
                    tracing::debug!("acp: the other side stopped reading");
                    return;
                }
            }
            Out::Close(done) => {
                // Refused from now on: a line sent later would never be written.
                lines.close();
                let _ = writer.shutdown().await;
                let _ = done.send(());
                return;
            }
        }
    }
}

async fn read_lines<R: AsyncRead + Unpin>(
    reader: R,
    out: mpsc::UnboundedSender<Out>,
    pending: Pending,
    incoming: mpsc::UnboundedSender<Incoming>,
) {
    let mut reader = BufReader::new(reader);
    let mut line = Vec::new();
    loop {
        line.clear();
        match read_bounded_line(&mut reader, &mut line).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("acp: reading stopped: {e}");
                break;
            }
        }
        if line.len() > MAX_LINE_BYTES {
            reply_error(
                &out,
                Value::Null,
                codes::INVALID_REQUEST,
                "message too long",
            );
            continue;
        }
        let text = String::from_utf8_lossy(&line);
        if text.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(message) => route(message, &out, &pending, &incoming),
            Err(e) => reply_error(
                &out,
                Value::Null,
                codes::PARSE_ERROR,
                &format!("not JSON: {e}"),
            ),
        }
    }
    // Whoever waits for an answer learns none will come, and so does whoever asks later.
    let waiting = {
        let mut waiting = lock(&pending);
        waiting.ended = true;
        std::mem::take(&mut waiting.answers)
    };
    for (_, tx) in waiting {
        let _ = tx.send(Err(RpcError::closed()));
    }
}

/// Reads up to a newline, keeping at most [`MAX_LINE_BYTES`] + 1 bytes of it (the rest of a
/// longer line is read and dropped, so the next message still parses).
async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match buf.iter().position(|b| *b == b'\n') {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        let room = (MAX_LINE_BYTES + 1).saturating_sub(line.len());
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        let used = done.unwrap_or(buf.len());
        total += used;
        reader.consume(used);
        if done.is_some() {
            return Ok(total);
        }
    }
}

fn route(
    message: Value,
    out: &mpsc::UnboundedSender<Out>,
    pending: &Pending,
    incoming: &mpsc::UnboundedSender<Incoming>,
) {
    let Value::Object(mut m) = message else {
        // Batches are not part of ACP.
        reply_error(
            out,
            Value::Null,
            codes::INVALID_REQUEST,
            "expected one JSON-RPC object",
        );
        return;
    };
    let id = m.remove("id");
    let method = m
        .remove("method")
        .and_then(|v| v.as_str().map(str::to_owned));
    let params = m.remove("params").unwrap_or(Value::Null);
    match (method, id) {
        (Some(method), Some(id)) => {
            let _ = incoming.send(Incoming::Request { id, method, params });
        }
        (Some(method), None) => {
            let _ = incoming.send(Incoming::Notification { method, params });
        }
        (None, Some(id)) => {
            let Some(tx) = id.as_u64().and_then(|n| lock(pending).answers.remove(&n)) else {
                tracing::debug!("acp: an answer to no request ({id})");
                return;
            };
            let answer = match (m.remove("result"), m.remove("error")) {
                (_, Some(e)) => Err(error_of(&e)),
                (Some(result), None) => Ok(result),
                (None, None) => Ok(Value::Null),
            };
            let _ = tx.send(answer);
        }
        (None, None) => {
            reply_error(
                out,
                Value::Null,
                codes::INVALID_REQUEST,
                "no method and no id",
            );
        }
    }
}

fn error_of(e: &Value) -> RpcError {
    RpcError {
        code: e["code"].as_i64().unwrap_or(codes::INTERNAL_ERROR),
        message: e["message"].as_str().unwrap_or("error").to_owned(),
        data: e.get("data").cloned(),
    }
}

fn reply_error(out: &mpsc::UnboundedSender<Out>, id: Value, code: i64, message: &str) {
    let error = RpcError::new(code, message).to_json();
    let _ = out.send(Out::Line(
        json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string(),
    ));
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt, duplex};

    use super::*;

    /// What the other side sent before closing its end is still answered, and the answers
    /// written before [`Peer::close`] returns.
    #[tokio::test]
    async fn answers_to_what_came_before_the_end_are_written() {
        let (ours, theirs) = duplex(1 << 16);
        let (r, w) = tokio::io::split(ours);
        let (peer, mut incoming) = connect(r, w);
        let (mut their_r, mut their_w) = tokio::io::split(theirs);
        their_w
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"m\",\"params\":{}}\n")
            .await
            .unwrap();
        their_w.shutdown().await.unwrap();
        let Some(Incoming::Request { id, .. }) = incoming.recv().await else {
            panic!("no request")
        };
        assert!(incoming.recv().await.is_none(), "their end is closed");
        assert!(peer.respond(id, Ok(json!({"done": true}))));
        peer.close().await;
        let mut written = String::new();
        their_r.read_to_string(&mut written).await.unwrap();
        let answer: Value = serde_json::from_str(written.trim_end()).unwrap();
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["result"]["done"], true);
        assert!(
            !peer.notify("late", json!({})),
            "nothing is written after close"
        );
    }

    /// A request of ours once their end is closed fails at once instead of waiting forever.
    #[tokio::test]
    async fn a_request_after_their_end_closed_fails_at_once() {
        let (ours, theirs) = duplex(1 << 16);
        let (r, w) = tokio::io::split(ours);
        let (peer, mut incoming) = connect(r, w);
        let (_their_r, mut their_w) = tokio::io::split(theirs);
        their_w.shutdown().await.unwrap();
        assert!(incoming.recv().await.is_none());
        let asked = tokio::time::timeout(Duration::from_secs(5), peer.request("ask", json!({})))
            .await
            .expect("answered at once");
        assert_eq!(asked, Err(RpcError::closed()));
    }
}
