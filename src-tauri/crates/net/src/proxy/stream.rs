//! What the proxy serves: any byte stream, and for sockets the kernel can move bytes
//! between (TCP and Unix sockets on Linux), the socket itself, so tunnels skip the copy
//! through user space (`splice`).

pub(crate) mod splice;

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::net::TcpStream;
#[cfg(unix)]
use tokio::net::UnixStream;

/// A socket the proxy may splice: only this crate makes one.
#[derive(Debug, Clone, Copy)]
pub struct SpliceSocket<'a>(pub(crate) SocketRef<'a>);

#[derive(Debug, Clone, Copy)]
pub(crate) enum SocketRef<'a> {
    Tcp(&'a TcpStream),
    #[cfg(unix)]
    Unix(&'a UnixStream),
}

/// A client connection the proxy can serve. Implemented for tokio's TCP and Unix sockets
/// (carried zero-copy on Linux) and in-memory duplex streams; wrap any other stream in
/// `Plain`.
pub trait ProxyStream: AsyncRead + AsyncWrite + Unpin + Send {
    /// The socket under the stream, for the zero-copy path; `None` copies.
    fn splice_socket(&self) -> Option<SpliceSocket<'_>> {
        None
    }
}

impl ProxyStream for TcpStream {
    fn splice_socket(&self) -> Option<SpliceSocket<'_>> {
        Some(SpliceSocket(SocketRef::Tcp(self)))
    }
}

#[cfg(unix)]
impl ProxyStream for UnixStream {
    fn splice_socket(&self) -> Option<SpliceSocket<'_>> {
        Some(SpliceSocket(SocketRef::Unix(self)))
    }
}

impl ProxyStream for DuplexStream {}

/// Any other stream, served by copying.
#[derive(Debug)]
pub struct Plain<S>(pub S);

impl<S: AsyncRead + AsyncWrite + Unpin + Send> ProxyStream for Plain<S> {}

impl<S: AsyncRead + Unpin> AsyncRead for Plain<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Plain<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
