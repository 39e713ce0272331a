//! Reading a request head from a client that may be hostile: bounded in size, in header
//! count and in time (a client sending one byte a second gets a 408, not a task forever),
//! and garbage (SOCKS, TLS without CONNECT) refused at its first line, not at the timeout.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};

/// Most header lines a request may have.
pub const MAX_HEADERS: usize = 100;
/// Bytes read from the socket at a time while looking for the end of the head.
const READ_CHUNK: usize = 4096;

/// A parsed request head.
#[derive(Debug)]
pub(crate) struct RequestHead {
    pub method: String,
    pub target: String,
    /// `1` for HTTP/1.1, `0` for HTTP/1.0.
    pub minor_version: u8,
    pub headers: Vec<(String, Vec<u8>)>,
}

impl RequestHead {
    /// Values of every header called `name` (case-insensitive).
    pub fn values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum HeadError {
    #[error("the request head did not arrive within {0:?}")]
    TimedOut(Duration),
    #[error("the request head is longer than {0} bytes")]
    TooLarge(usize),
    #[error("more than {MAX_HEADERS} header lines")]
    TooManyHeaders,
    #[error("not an HTTP/1 request: {0}")]
    Malformed(String),
    #[error("the client closed the connection before sending a request")]
    Closed,
    #[error("reading the request: {0}")]
    Io(#[from] io::Error),
}

impl HeadError {
    /// The status to answer with; `None` when nobody is listening any more.
    pub fn status(&self) -> Option<u16> {
        match self {
            HeadError::TimedOut(_) => Some(408),
            HeadError::TooLarge(_) | HeadError::TooManyHeaders => Some(431),
            HeadError::Malformed(_) => Some(400),
            HeadError::Closed | HeadError::Io(_) => None,
        }
    }
}

/// Reads one request head; returns it and any bytes the client sent after it (a client
/// may send its TLS hello right behind the CONNECT).
pub(crate) async fn read_head<R: AsyncRead + Unpin>(
    reader: &mut R,
    max_bytes: usize,
    timeout: Duration,
) -> Result<(RequestHead, Vec<u8>), HeadError> {
    tokio::time::timeout(timeout, read_until_end(reader, max_bytes))
        .await
        .map_err(|_| HeadError::TimedOut(timeout))?
}

async fn read_until_end<R: AsyncRead + Unpin>(
    reader: &mut R,
    max_bytes: usize,
) -> Result<(RequestHead, Vec<u8>), HeadError> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; READ_CHUNK];
    let mut first_line_checked = false;
    let mut first_read = true;
    loop {
        // Never hold more than one byte past the cap: enough to tell "too large".
        let room = (max_bytes + 1).saturating_sub(buf.len()).min(READ_CHUNK);
        let n = reader.read(&mut chunk[..room]).await?;
        if n == 0 {
            return Err(match buf.is_empty() {
                true => HeadError::Closed,
                false => HeadError::Malformed("the connection closed mid-head".into()),
            });
        }
        let searched_from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = head_end(&buf, searched_from) {
            let head = parse(&buf[..end])?;
            return Ok((head, buf[end..].to_vec()));
        }
        if buf.len() > max_bytes {
            return Err(HeadError::TooLarge(max_bytes));
        }
        // Parsed early, after the first read and when the request line is in: garbage
        // (a SOCKS greeting, TLS without CONNECT) is refused at once, and a head trickled in
        // byte by byte is not re-parsed on every byte.
        let line_done = !first_line_checked && chunk[..n].contains(&b'\n');
        if first_read || line_done {
            first_line_checked |= line_done;
            check_partial(&buf)?;
        }
        first_read = false;
    }
}

/// Where the head ends (after its blank line), searching from `from`.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    (from..buf.len()).find_map(|i| {
        let rest = &buf[i..];
        if rest.starts_with(b"\r\n\r\n") {
            Some(i + 4)
        } else if rest.starts_with(b"\n\n") {
            Some(i + 2)
        } else {
            None
        }
    })
}

fn parse_error(e: httparse::Error) -> HeadError {
    match e {
        httparse::Error::TooManyHeaders => HeadError::TooManyHeaders,
        other => HeadError::Malformed(other.to_string()),
    }
}

fn check_partial(buf: &[u8]) -> Result<(), HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    httparse::Request::new(&mut headers)
        .parse(buf)
        .map(drop)
        .map_err(parse_error)
}

fn parse(bytes: &[u8]) -> Result<RequestHead, HeadError> {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(bytes).map_err(parse_error)? {
        httparse::Status::Complete(_) => {}
        httparse::Status::Partial => return Err(HeadError::Malformed("an incomplete head".into())),
    }
    let (Some(method), Some(target), Some(minor_version)) = (req.method, req.path, req.version)
    else {
        return Err(HeadError::Malformed("no request line".into()));
    };
    Ok(RequestHead {
        method: method.to_owned(),
        target: target.to_owned(),
        minor_version,
        headers: req
            .headers
            .iter()
            .map(|h| (h.name.to_owned(), h.value.to_vec()))
            .collect(),
    })
}
