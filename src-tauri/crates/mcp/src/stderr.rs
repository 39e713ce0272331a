//! A stdio server's stderr, kept for diagnostics but never more than [`MAX_KEPT`] bytes: the
//! start (where startup errors are) and the latest (where crash messages are).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

/// At most this much stderr is kept per server.
pub const MAX_KEPT: usize = 1024 * 1024;
const HEAD: usize = 64 * 1024;
const TAIL: usize = MAX_KEPT - HEAD;

#[derive(Default)]
struct Buffer {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl Buffer {
    fn push(&mut self, mut bytes: &[u8]) {
        if self.head.len() < HEAD {
            let n = bytes.len().min(HEAD - self.head.len());
            self.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        self.tail.extend(bytes);
        if self.tail.len() > TAIL {
            let excess = self.tail.len() - TAIL;
            self.tail.drain(..excess);
            self.dropped += excess as u64;
        }
    }
}

/// Shared handle to one server's captured stderr.
#[derive(Clone, Default)]
pub struct StderrLog {
    inner: Arc<Mutex<Buffer>>,
    /// Cancelled when the pipe reached its end.
    closed: CancellationToken,
}

impl StderrLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&self, bytes: &[u8]) {
        self.lock().push(bytes);
    }

    /// Everything kept, with a note where bytes were dropped.
    pub fn text(&self) -> String {
        let buf = self.lock();
        let mut bytes = buf.head.clone();
        if buf.dropped > 0 {
            bytes.extend_from_slice(
                format!(
                    "\n[... {} bytes of stderr dropped: only {} MB is kept ...]\n",
                    buf.dropped,
                    MAX_KEPT / (1024 * 1024)
                )
                .as_bytes(),
            );
        }
        bytes.extend(buf.tail.iter());
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The last `max_chars` characters, whole lines where possible; `None` when empty.
    pub fn tail(&self, max_chars: usize) -> Option<String> {
        let text = self.text();
        let trimmed = text.trim_end();
        if trimmed.is_empty() {
            return None;
        }
        let count = trimmed.chars().count();
        if count <= max_chars {
            return Some(trimmed.to_owned());
        }
        let cut: String = trimmed.chars().skip(count - max_chars).collect();
        let cut = match cut.find('\n') {
            Some(i) if i + 1 < cut.len() => cut[i + 1..].to_owned(),
            _ => cut,
        };
        Some(format!("...\n{cut}"))
    }

    /// Drains `reader` to the end, keeping what fits. Never stops early: a full pipe would
    /// block the server.
    pub async fn capture(self, mut reader: impl AsyncRead + Unpin) {
        let mut chunk = vec![0u8; 8192];
        loop {
            match reader.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => self.push(&chunk[..n]),
            }
        }
        self.closed.cancel();
    }

    /// Waits up to `limit` for the pipe to close, so a crash message is in before the
    /// tail is read.
    pub async fn wait_closed(&self, limit: Duration) {
        let _ = tokio::time::timeout(limit, self.closed.cancelled()).await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Buffer> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_output_is_kept_whole() {
        let log = StderrLog::new();
        log.push(b"starting\n");
        log.push(b"ready\n");
        assert_eq!(log.text(), "starting\nready\n");
        assert_eq!(log.tail(100).as_deref(), Some("starting\nready"));
        assert_eq!(log.tail(7).as_deref(), Some("...\nready"));
        assert_eq!(StderrLog::new().tail(10), None);
    }

    #[test]
    fn output_over_the_cap_keeps_head_and_tail_with_a_note() {
        let log = StderrLog::new();
        log.push(b"FIRST LINE\n");
        let line = [b'x'; 1000];
        for _ in 0..3000 {
            log.push(&line);
        }
        log.push(b"\nLAST LINE\n");
        let text = log.text();
        assert!(text.starts_with("FIRST LINE\n"));
        assert!(text.ends_with("LAST LINE\n"));
        assert!(text.contains("bytes of stderr dropped"), "note missing");
        assert!(text.len() <= MAX_KEPT + 200, "kept {} bytes", text.len());
        let dropped = 11 + 3_000_000 + 11 - MAX_KEPT;
        assert!(text.contains(&format!("{dropped} bytes of stderr dropped")));
    }

    #[tokio::test]
    async fn capture_reads_to_the_end() {
        let log = StderrLog::new();
        let data = vec![b'y'; 3 * MAX_KEPT];
        log.clone().capture(&data[..]).await;
        assert!(log.text().len() <= MAX_KEPT + 200);
    }
}
