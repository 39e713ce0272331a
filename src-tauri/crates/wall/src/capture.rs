//! A walled command's output: each stream captured with a bounded head and tail, and
//! redacted.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

use paddock_sandbox::Redactor;

/// Share of a stream's cap kept from its start; the rest comes from its end.
const HEAD_SHARE_PERCENT: usize = 70;
/// Extra bytes kept on each side of a cut so a secret straddling it is still recognised,
/// then dropped (at a line break where there is one).
const REDACTION_MARGIN: usize = 1024;
/// Bytes read at a time.
const READ_CHUNK: usize = 64 * 1024;

/// One stream, bounded: the first and last bytes, and how many there were in all.
#[derive(Debug)]
pub struct Capture {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

impl Capture {
    /// Keeps about `cap` bytes (70% head, 30% tail) plus the redaction margins.
    pub fn new(cap: usize) -> Self {
        let head_cap = cap * HEAD_SHARE_PERCENT / 100;
        Self {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
        }
    }

    pub fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let head_room = (self.head_cap + REDACTION_MARGIN).saturating_sub(self.head.len());
        let into_head = head_room.min(chunk.len());
        self.head.extend_from_slice(&chunk[..into_head]);
        chunk = &chunk[into_head..];
        if chunk.is_empty() {
            return;
        }
        let keep = self.tail_cap + REDACTION_MARGIN;
        self.tail.extend_from_slice(chunk);
        if self.tail.len() > keep * 2 {
            let excess = self.tail.len() - keep;
            self.tail.drain(..excess);
        }
    }

    pub fn is_cut(&self) -> bool {
        self.total > (self.head_cap + self.tail_cap) as u64
    }

    /// The stream as text: redacted, and cut in the middle with a marker when too long.
    /// Bytes seen in all.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Everything seen, when nothing was cut (unredacted: for checks, never for the model).
    pub fn whole_text(&self) -> Option<String> {
        (self.tail.is_empty() && self.total == self.head.len() as u64)
            .then(|| String::from_utf8_lossy(&self.head).into_owned())
    }

    pub fn render(&self, redactor: &Redactor) -> String {
        if !self.is_cut() {
            let mut all = self.head.clone();
            all.extend_from_slice(&self.tail);
            return redactor.redact(&String::from_utf8_lossy(&all));
        }
        let head = redactor.redact(&String::from_utf8_lossy(&self.head));
        let head = keep_start(&head, self.head_cap);
        // The tail may begin inside the head's margin when the stream was only just too long.
        let mut tail_source = self.head[self.head_cap.min(self.head.len())..].to_vec();
        tail_source.extend_from_slice(&self.tail);
        let from = tail_source
            .len()
            .saturating_sub(self.tail_cap + REDACTION_MARGIN);
        let tail = redactor.redact(&String::from_utf8_lossy(&tail_source[from..]));
        let tail = keep_end(&tail, self.tail_cap);
        let cut = self
            .total
            .saturating_sub((self.head_cap + self.tail_cap) as u64);
        format!("{head}\n[... {cut} bytes of output cut ...]\n{tail}")
    }
}

/// The first `max` bytes of `text`, ending at a line break when one is near the end.
fn keep_start(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let cut = &text[..end];
    match cut.rfind('\n') {
        Some(i) if i + REDACTION_MARGIN >= end => &cut[..i],
        _ => cut,
    }
}

/// The last `max` bytes of `text`, starting after a line break when one is near the start.
fn keep_end(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let cut = &text[start..];
    match cut.find('\n') {
        Some(i) if i < REDACTION_MARGIN => &cut[i + 1..],
        _ => cut,
    }
}

/// Reads a stream to its end into a shared capture (shared so a caller that stops waiting
/// still has what arrived).
pub async fn capture_into(mut reader: impl AsyncRead + Unpin, into: Arc<Mutex<Capture>>) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match reader.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut capture) = into.lock() {
                    capture.push(&buf[..n]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_whole() {
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world");
        assert_eq!(c.render(&Redactor::default()), "hello world");
    }

    #[test]
    fn long_output_keeps_head_and_tail() {
        let mut c = Capture::new(10_000);
        let text: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        for chunk in text.as_bytes().chunks(777) {
            c.push(chunk);
        }
        let out = c.render(&Redactor::default());
        assert!(out.starts_with("line 0\nline 1\n"));
        assert!(out.ends_with("line 4999\n"));
        assert!(out.contains("bytes of output cut"));
        assert!(out.len() < 10_200, "{}", out.len());
    }

    #[test]
    fn a_secret_at_the_cut_is_still_redacted() {
        let mut c = Capture::new(2000);
        let filler = "x".repeat(1390);
        let secret = "sk-abcdefghijklmnopqrstuvwxyz123456";
        c.push(format!("{filler} {secret} {}\nend\n", "y".repeat(5000)).as_bytes());
        let out = c.render(&Redactor::default());
        assert!(!out.contains("abcdefghijklmnop"), "{out}");
    }
}
