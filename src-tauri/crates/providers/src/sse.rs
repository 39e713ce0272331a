//! A small server-sent-events parser (the WHATWG event-stream format): bytes in, events out.
//! Lines may end in LF, CRLF or CR and may be split anywhere across network chunks.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field; empty when the server sent none (the spec's "message").
    pub event: String,
    pub data: String,
}

/// Lines longer than this are not an event stream we can use.
const MAX_LINE: usize = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SseError {
    #[error("a line of the event stream is not valid UTF-8")]
    Utf8,
    #[error("a line of the event stream is longer than {MAX_LINE} bytes")]
    TooLong,
}

#[derive(Debug, Default)]
pub(crate) struct SseParser {
    buf: Vec<u8>,
    /// The previous chunk ended in CR: a LF at the start of the next one belongs to it.
    skip_lf: bool,
    event: String,
    data: String,
    has_data: bool,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one chunk of the body; returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut out = Vec::new();
        let mut chunk = chunk;
        if self.skip_lf && !chunk.is_empty() {
            self.skip_lf = false;
            if let Some(rest) = chunk.strip_prefix(b"\n") {
                chunk = rest;
            }
        }
        let mut start = 0;
        let mut i = 0;
        while i < chunk.len() {
            let b = chunk[i];
            if b == b'\n' || b == b'\r' {
                self.buf.extend_from_slice(&chunk[start..i]);
                let line = std::mem::take(&mut self.buf);
                self.line(&line, &mut out)?;
                if b == b'\r' {
                    if chunk.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    } else if i + 1 == chunk.len() {
                        self.skip_lf = true;
                    }
                }
                start = i + 1;
            }
            i += 1;
        }
        self.buf.extend_from_slice(&chunk[start..]);
        if self.buf.len() > MAX_LINE {
            return Err(SseError::TooLong);
        }
        Ok(out)
    }

    /// The body ended. Servers that forget the final blank line still get their last event.
    pub fn finish(&mut self) -> Result<Option<SseEvent>, SseError> {
        let mut out = Vec::new();
        if !self.buf.is_empty() {
            let line = std::mem::take(&mut self.buf);
            self.line(&line, &mut out)?;
        }
        self.line(b"", &mut out)?;
        Ok(out.pop())
    }

    fn line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), SseError> {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: std::mem::take(&mut self.event),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return Ok(());
        }
        let line = std::str::from_utf8(line).map_err(|_| SseError::Utf8)?;
        if line.starts_with(':') {
            return Ok(()); // a comment: keep-alives use these
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => value.clone_into(&mut self.event),
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            _ => {} // id, retry and unknown fields do not matter to a one-shot response
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    fn parse_in_pieces(input: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for chunk in input.chunks(piece) {
            out.extend(p.push(chunk).unwrap());
        }
        out.extend(p.finish().unwrap());
        out
    }

    #[test]
    fn parses_events_split_at_every_byte() {
        let input = "event: message_start\r\ndata: {\"a\":1}\r\n\r\n: keep-alive\n\n\
                     data: line one\ndata: line two\n\nevent: ping\rdata: {}\r\rdata: é✓\n\n";
        let want = vec![
            ev("message_start", "{\"a\":1}"),
            ev("", "line one\nline two"),
            ev("ping", "{}"),
            ev("", "é✓"),
        ];
        for piece in [1, 2, 3, 7, 1000] {
            assert_eq!(
                parse_in_pieces(input.as_bytes(), piece),
                want,
                "piece {piece}"
            );
        }
    }

    #[test]
    fn events_without_data_are_not_dispatched() {
        assert_eq!(
            parse_in_pieces(b"event: x\n\nid: 3\nretry: 9\n\n", 4),
            vec![]
        );
    }

    #[test]
    fn a_missing_final_blank_line_still_yields_the_event() {
        assert_eq!(parse_in_pieces(b"data: [DONE]", 5), vec![ev("", "[DONE]")]);
        assert_eq!(parse_in_pieces(b"data:x\n", 5), vec![ev("", "x")]);
    }

    #[test]
    fn invalid_utf8_is_an_error_not_a_panic() {
        let mut p = SseParser::new();
        assert_eq!(p.push(b"data: \xff\xfe\n\n"), Err(SseError::Utf8));
    }
}
