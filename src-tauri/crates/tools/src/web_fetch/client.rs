//! One HTTP/1.1 request of web_fetch, through the call's gate to the proxy and nowhere
//! else: https as `CONNECT host:port` and TLS inside the tunnel (the proxy sees the host, the
//! server sees a client that checked its certificate), http as the absolute-form request a
//! proxy forwards. No cookies, no credentials, one request per connection.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use http_body_util::{BodyExt, Empty};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::UnixStream;
use tokio::task::JoinHandle;
use url::Url;

/// Sent with every request: who is asking, so a server's logs can tell.
pub(super) const USER_AGENT: &str = concat!(
    "Paddock/",
    env!("CARGO_PKG_VERSION"),
    " (web_fetch; an AI agent's tool, run by a user)"
);
/// What web_fetch reads, best first.
const ACCEPT: &str = "text/html, text/markdown, text/plain;q=0.9, application/json;q=0.9, \
                      application/xhtml+xml;q=0.9, application/xml;q=0.8, text/*;q=0.7, \
                      */*;q=0.1";
/// The proxy's answer to a CONNECT: status line and headers, at most this long.
const MAX_CONNECT_HEAD: usize = 16 * 1024;
/// What is kept of the body of the proxy's refusal (one line saying why).
const MAX_REFUSAL_BODY: usize = 4096;

/// What went wrong on the way, said for the model.
#[derive(Debug, thiserror::Error)]
pub(super) enum ClientError {
    #[error("could not reach Paddock's proxy: {0}")]
    Gate(std::io::Error),
    #[error("the proxy's answer was not HTTP: {0}")]
    ProxyAnswer(String),
    #[error("TLS with {host} failed: {error}")]
    Tls { host: String, error: std::io::Error },
    #[error("TLS is not available: {0}")]
    TlsSetup(String),
    #[error("the URL cannot be sent as a request: {0}")]
    Uri(String),
    #[error("HTTP: {0}")]
    Http(#[from] hyper::Error),
}

/// How one request ended.
pub(super) enum Answer {
    /// The server's (or, for plain http, possibly the proxy's) response, its body unread.
    Response(Response),
    /// The proxy's own answer to the CONNECT: anything but 200 means no tunnel.
    Tunnel { status: u16, said: String },
}

/// A response head and its body, still to be read (or dropped unread).
pub(super) struct Response {
    pub status: StatusCode,
    pub headers: HeaderMap,
    body: Incoming,
    _connection: AbortOnDrop,
}

/// A body as far as it was read.
pub(super) struct Body {
    pub bytes: Vec<u8>,
    /// More was sent than `cap`: the rest was not read.
    pub cut: bool,
}

impl Response {
    /// Reads the body, stopping after `cap` bytes.
    pub(super) async fn read(mut self, cap: usize) -> Result<Body, ClientError> {
        let mut bytes = Vec::new();
        while let Some(frame) = self.body.frame().await {
            let Ok(data) = frame?.into_data() else {
                continue;
            };
            let room = cap - bytes.len();
            if data.len() > room {
                bytes.extend_from_slice(&data[..room]);
                return Ok(Body { bytes, cut: true });
            }
            bytes.extend_from_slice(&data);
        }
        Ok(Body { bytes, cut: false })
    }
}

/// The connection's task, ended with the response it serves.
struct AbortOnDrop(JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Sends `method url` through the gate at `socket`. `url` is http or https, without
/// userinfo or fragment (the caller checked).
pub(super) async fn request(
    socket: &Path,
    method: &Method,
    url: &Url,
) -> Result<Answer, ClientError> {
    let mut stream = UnixStream::connect(socket)
        .await
        .map_err(ClientError::Gate)?;
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let authority = match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_owned(),
    };
    if url.scheme() == "https" {
        let tunnel = format!("{host}:{port}");
        let (status, said) = connect(&mut stream, &tunnel).await?;
        if status != 200 {
            return Ok(Answer::Tunnel { status, said });
        }
        let name = server_name(url)?;
        let tls = tokio_rustls::TlsConnector::from(tls_config()?)
            .connect(name, stream)
            .await
            .map_err(|error| ClientError::Tls {
                host: host.to_owned(),
                error,
            })?;
        // Origin form inside the tunnel: the server is asked for its own path.
        let path = match url.query() {
            Some(query) => format!("{}?{query}", url.path()),
            None => url.path().to_owned(),
        };
        send(tls, method, &path, &authority).await
    } else {
        // Absolute form to the proxy, which decides on the host and forwards the rest.
        send(stream, method, url.as_str(), &authority).await
    }
}

async fn send<S>(
    stream: S,
    method: &Method,
    target: &str,
    authority: &str,
) -> Result<Answer, ClientError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let uri: Uri = target
        .parse()
        .map_err(|e: hyper::http::uri::InvalidUri| ClientError::Uri(e.to_string()))?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake::<_, Empty<Bytes>>(TokioIo::new(stream)).await?;
    let driver = AbortOnDrop(tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::debug!("web_fetch connection: {e}");
        }
    }));
    let mut request = Request::new(Empty::<Bytes>::new());
    *request.method_mut() = method.clone();
    *request.uri_mut() = uri;
    let headers = request.headers_mut();
    headers.insert(header::HOST, header_value(authority)?);
    headers.insert(header::USER_AGENT, HeaderValue::from_static(USER_AGENT));
    headers.insert(header::ACCEPT, HeaderValue::from_static(ACCEPT));
    headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static("gzip"));
    headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
    let response = sender.send_request(request).await?;
    let (head, body) = response.into_parts();
    Ok(Answer::Response(Response {
        status: head.status,
        headers: head.headers,
        body,
        _connection: driver,
    }))
}

fn header_value(text: &str) -> Result<HeaderValue, ClientError> {
    HeaderValue::from_str(text).map_err(|e| ClientError::Uri(e.to_string()))
}

/// Asks the proxy for a tunnel to `target`; its status and, when it refused, what it said.
/// The head is read byte by byte so nothing of the tunnel is taken with it.
async fn connect(stream: &mut UnixStream, target: &str) -> Result<(u16, String), ClientError> {
    let ask =
        format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\nUser-Agent: {USER_AGENT}\r\n\r\n");
    stream
        .write_all(ask.as_bytes())
        .await
        .map_err(ClientError::Gate)?;
    let mut head = Vec::with_capacity(128);
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() >= MAX_CONNECT_HEAD {
            return Err(ClientError::ProxyAnswer("its head is too long".into()));
        }
        match stream.read_u8().await {
            Ok(byte) => head.push(byte),
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return Err(ClientError::ProxyAnswer(
                    "it closed without answering".into(),
                ));
            }
            Err(e) => return Err(ClientError::Gate(e)),
        }
    }
    let head = String::from_utf8_lossy(&head);
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse::<u16>().ok())
        .ok_or_else(|| ClientError::ProxyAnswer(head.lines().next().unwrap_or("").to_owned()))?;
    if status == 200 {
        return Ok((status, String::new()));
    }
    let length = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse::<usize>().ok())
        .unwrap_or(0)
        .min(MAX_REFUSAL_BODY);
    let mut body = vec![0u8; length];
    let read = stream.read_exact(&mut body).await.map(|_| ());
    let said = match read {
        Ok(()) => String::from_utf8_lossy(&body).trim().to_owned(),
        Err(_) => String::new(),
    };
    Ok((status, said))
}

fn server_name(url: &Url) -> Result<ServerName<'static>, ClientError> {
    let name = match url.host() {
        Some(url::Host::Domain(d)) => ServerName::try_from(d.to_owned()),
        Some(url::Host::Ipv4(ip)) => Ok(ServerName::from(std::net::IpAddr::V4(ip))),
        Some(url::Host::Ipv6(ip)) => Ok(ServerName::from(std::net::IpAddr::V6(ip))),
        None => return Err(ClientError::Uri("no host".into())),
    };
    name.map_err(|e| ClientError::Uri(e.to_string()))
}

/// rustls with ring; certificates checked by the platform's verifier (on Linux the system's
/// store, so a certificate authority the user or their company installed is trusted as it
/// is by the model calls) with Mozilla's roots (webpki-root-certs) added, so a machine with
/// no store still verifies. Built once.
fn tls_config() -> Result<Arc<rustls::ClientConfig>, ClientError> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(
                webpki_root_certs::TLS_SERVER_ROOT_CERTS.iter().cloned(),
                provider.clone(),
            )
            .map_err(|e| format!("the certificate verifier: {e}"))?;
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .map_err(|e| e.to_string())?
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(verifier))
                .with_no_client_auth();
            config.alpn_protocols = vec![b"http/1.1".to_vec()];
            Ok(Arc::new(config))
        })
        .clone()
        .map_err(ClientError::TlsSetup)
}
