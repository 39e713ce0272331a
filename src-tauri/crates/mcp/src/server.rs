//! One connected MCP server: starting it (stdio or streamable HTTP), noticing when it goes
//! away, and stopping it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use paddock_protocol::{McpServerConfig, McpTransport};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, Tool as RemoteTool};
use rmcp::service::NotificationContext;
use rmcp::service::{ClientInitializeError, QuitReason, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, Peer, RoleClient, ServiceExt};
use tokio_util::sync::CancellationToken;

use crate::lifeline::Lifeline;
pub use crate::start_error::StartError;
use crate::stderr::StderrLog;
use crate::stdio::{self, ChildGuard, Launch};

/// How long a stdio server that closed its connection gets to exit by itself before it
/// is killed (its exit status says more than "connection closed").
const EXIT_GRACE: Duration = Duration::from_secs(2);
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// The exit reason of a server Paddock shut down itself.
pub const STOPPED_BY_PADDOCK: &str = "stopped by Paddock";

/// What the host's options say about launching servers.
pub struct StartContext<'a> {
    pub base_dir: Option<&'a Path>,
    pub path: Option<&'a str>,
    pub hide_env: &'a [String],
    /// Where a stdio server's stderr goes; owned by the caller so it outlives a failed start.
    pub stderr: StderrLog,
}

/// A running server.
pub struct Server {
    pub name: String,
    pub peer: Peer<RoleClient>,
    /// The tools listed at start.
    pub tools: Vec<RemoteTool>,
    pub lifeline: Arc<Lifeline>,
    /// Set when the server says its tool list changed; the host lists them again.
    tools_changed: Arc<AtomicBool>,
    stop: CancellationToken,
    child: Option<ChildGuard>,
    /// HTTP servers: the client and URL for a liveness check.
    http: Option<(reqwest::Client, String)>,
}

impl Server {
    /// Whether the server said its tools changed since the last call (which clears it).
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::AcqRel)
    }

    /// Lists the server's tools again.
    pub async fn list_tools(&self) -> Result<Vec<RemoteTool>, String> {
        self.peer
            .list_all_tools()
            .await
            .map_err(|e| format!("listing its tools failed: {e}"))
    }

    /// The process id of a stdio server.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(ChildGuard::pid)
    }

    /// Stops the server: closes the connection, lets a stdio process exit, then kills it.
    pub async fn shutdown(&self) {
        self.lifeline.end(STOPPED_BY_PADDOCK.to_owned());
        self.stop.cancel();
        if let Some(child) = &self.child
            && !child.wait_exit(EXIT_GRACE).await
        {
            child.kill_now();
        }
    }

    /// After a transport error: is an HTTP server still there? If it does not answer at all
    /// it is gone (a stdio server's exit is seen by its watcher instead).
    pub async fn check_alive(&self) {
        let Some((client, url)) = &self.http else {
            return;
        };
        // Any HTTP answer, even an error status, means something is listening.
        let probe = client.get(url).timeout(PROBE_TIMEOUT).send().await;
        if let Err(e) = probe
            && (e.is_connect() || e.is_timeout())
        {
            self.lifeline
                .end(format!("the server at {url} stopped answering"));
            self.stop.cancel();
        }
    }

    /// Stops the server at once, from any thread (drop paths).
    pub fn kill_now(&self) {
        self.lifeline.end(STOPPED_BY_PADDOCK.to_owned());
        self.stop.cancel();
        if let Some(child) = &self.child {
            child.kill_now();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.cancel();
        // ChildGuard's own drop kills the process group.
    }
}

/// Connects to one server and lists its tools. No timeout here: the caller bounds it, and
/// dropping this future kills whatever it started.
pub async fn start(
    name: &str,
    config: &McpServerConfig,
    ctx: &StartContext<'_>,
) -> Result<Server, StartError> {
    let transport = config
        .transport()
        .map_err(|e| StartError::Settings(e.to_string()))?;
    let lifeline = Arc::new(Lifeline::default());
    let stop = CancellationToken::new();
    let handler = Client::default();
    let tools_changed = handler.tools_changed.clone();
    match transport {
        McpTransport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let launch = Launch {
                command,
                args,
                env,
                cwd: stdio::resolve_cwd(cwd, ctx.base_dir),
                path: ctx.path,
                hide_env: ctx.hide_env,
            };
            let stderr = &ctx.stderr;
            let spawned = stdio::spawn(&launch, lifeline.clone(), stderr)?;
            let child = spawned.child;
            let serve = handler.serve_with_ct((spawned.stdout, spawned.stdin), stop.clone());
            let service = tokio::select! {
                r = serve => match r {
                    Ok(service) => service,
                    // A crash closes stdout first; its exit status is the better message.
                    Err(e) => match tokio::time::timeout(EXIT_GRACE, lifeline.gone()).await {
                        Ok(()) => return Err(exited_during_start(&lifeline, stderr).await),
                        Err(_) => return Err(handshake_error(&e)),
                    },
                },
                () = lifeline.gone() => return Err(exited_during_start(&lifeline, stderr).await),
            };
            let tools = tokio::select! {
                r = service.peer().list_all_tools() => r.map_err(|e| StartError::ListTools(e.to_string()))?,
                () = lifeline.gone() => return Err(exited_during_start(&lifeline, stderr).await),
            };
            let peer = service.peer().clone();
            watch_service(service, lifeline.clone(), Some(child.stop_token()));
            Ok(Server {
                name: name.to_owned(),
                peer,
                tools,
                lifeline,
                tools_changed,
                stop,
                child: Some(child),
                http: None,
            })
        }
        McpTransport::Http { url, headers } => {
            let client = http_client(headers)?;
            let transport =
                StreamableHttpClientTransport::with_client(client.clone(), http_config(url));
            let service = match handler.serve_with_ct(transport, stop.clone()).await {
                Ok(service) => service,
                Err(e) => {
                    // "Connection refused" says more than rmcp's layered transport error.
                    let probe = client.get(url).timeout(PROBE_TIMEOUT).send().await;
                    return Err(match probe {
                        Err(p) if p.is_connect() || p.is_timeout() => StartError::Connect {
                            url: url.to_owned(),
                            why: innermost(&p),
                        },
                        _ => handshake_error(&e),
                    });
                }
            };
            let tools = service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| StartError::ListTools(e.to_string()))?;
            let peer = service.peer().clone();
            watch_service(service, lifeline.clone(), None);
            Ok(Server {
                name: name.to_owned(),
                peer,
                tools,
                lifeline,
                tools_changed,
                stop,
                child: None,
                http: Some((client, url.to_owned())),
            })
        }
    }
}

/// Paddock's side of the connection: who it is, and a flag for `tools/list_changed`.
#[derive(Default)]
struct Client {
    tools_changed: Arc<AtomicBool>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("paddock", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        tracing::debug!("an MCP server's tool list changed");
        self.tools_changed.store(true, Ordering::Release);
    }
}

async fn exited_during_start(lifeline: &Lifeline, stderr: &StderrLog) -> StartError {
    stderr.wait_closed(Duration::from_millis(500)).await;
    StartError::Exited(
        lifeline
            .reason()
            .unwrap_or_else(|| "the server went away".to_owned()),
    )
}

fn handshake_error(e: &ClientInitializeError) -> StartError {
    StartError::Handshake(match e {
        ClientInitializeError::ConnectionClosed(_) => {
            "the server closed the connection during the MCP handshake".to_owned()
        }
        other => format!("the MCP handshake failed: {}", innermost(other)),
    })
}

/// The deepest cause: the part of a layered error a user can act on.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut current = e;
    while let Some(next) = current.source() {
        current = next;
    }
    current.to_string()
}

/// Ends the lifeline when rmcp's connection task stops. A stdio process that closed the
/// connection gets a moment to exit (its status is the better reason), then is killed.
fn watch_service(
    service: RunningService<RoleClient, Client>,
    lifeline: Arc<Lifeline>,
    kill_child: Option<CancellationToken>,
) {
    tokio::spawn(async move {
        let quit = service.waiting().await;
        if let Some(kill) = kill_child
            && tokio::time::timeout(EXIT_GRACE, lifeline.gone())
                .await
                .is_err()
        {
            lifeline.end("the server closed its connection; it was stopped".to_owned());
            kill.cancel();
        }
        lifeline.end(match quit {
            Ok(QuitReason::Cancelled) => STOPPED_BY_PADDOCK.to_owned(),
            Ok(QuitReason::JoinError(e)) | Err(e) => {
                format!("the connection to the server failed: {e}")
            }
            Ok(_) => "the connection to the server closed".to_owned(),
        });
    });
}

/// rmcp retries a broken event stream forever by default; a server that is gone must turn
/// into an error within seconds, not hang the call.
fn http_config(url: &str) -> StreamableHttpClientTransportConfig {
    let mut backoff = ExponentialBackoff::default();
    backoff.max_times = Some(3);
    backoff.base_duration = Duration::from_millis(250);
    backoff.max_delay = Some(Duration::from_secs(2));
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.retry_config = Arc::new(backoff);
    config
}

fn http_client(headers: &BTreeMap<String, String>) -> Result<reqwest::Client, StartError> {
    use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
    ensure_crypto_provider();
    let mut map = HeaderMap::new();
    for (key, value) in headers {
        let name = HeaderName::from_bytes(key.as_bytes())
            .map_err(|_| StartError::Http(format!("`{key}` is not a valid HTTP header name")))?;
        let mut value = HeaderValue::from_str(value).map_err(|_| {
            StartError::Http(format!("the value of header `{key}` is not valid in HTTP"))
        })?;
        // Keeps tokens out of debug output.
        value.set_sensitive(true);
        map.insert(name, value);
    }
    reqwest::Client::builder()
        .default_headers(map)
        .connect_timeout(Duration::from_secs(10))
        // The configured headers (tokens) would follow a redirect to another host.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| StartError::Http(format!("the HTTP client could not be set up: {e}")))
}

/// reqwest is built without a bundled crypto provider (no C toolchain needed); use ring
/// unless the host installed one.
fn ensure_crypto_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        // Losing a race with another installer is fine: either provider works.
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}
