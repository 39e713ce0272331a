//! The filtering proxy: HTTP CONNECT (TLS stays end to end; the proxy sees only the host it
//! is asked for) and plain-HTTP forwarding, each connection decided by the `NetworkPolicy`,
//! resolved and connected by the proxy itself. It serves any byte stream (a Unix socket
//! bound into the wall, a loopback TCP port), one listener per call: the `Call` a
//! connection arrives under is whose bytes, questions and lifetime it is.

mod ask;
mod call;
mod carry;
mod conn;
mod event;
mod forward;
mod head;
mod open;
mod pipe;
mod reply;
mod resolve;
mod stream;

use std::fmt;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use crate::addr::OwnAddressCache;
use crate::addr::own::system_cache;
use crate::policy::NetworkPolicy;

pub use ask::{AskRequest, Decider, DenyAsks};
pub use call::{Call, CallLimits, MAX_CALL_CONNECTIONS};
pub use event::{AskAnswer, ConnectionEvent, ConnectionSink, NoEvents, RefusedAddress};
pub use head::MAX_HEADERS;
pub use open::{MAX_ADDRESSES, MAX_CONNECT_ATTEMPTS};
pub use pipe::PIPE_BUFFER;
pub use resolve::{BoxFuture, Resolver, StaticResolver, SystemResolver};
pub use stream::{Plain, ProxyStream, SpliceSocket};

/// How long a question about a host waits for its answer before it counts as a refusal.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a client has to send its whole request head (slowloris gets a 408).
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The largest request head accepted (larger: 431).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// Connections open at once over the whole proxy (more: 503).
pub const MAX_CONNECTIONS: usize = 512;
/// How long resolving a name may take.
pub const RESOLVE_TIMEOUT: Duration = Duration::from_secs(10);
/// How long connecting to one address may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The pause after a failed accept (out of descriptors, say), so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The proxy's limits; `Default` gives the named constants above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxyConfig {
    pub ask_timeout: Duration,
    pub head_timeout: Duration,
    pub max_head_bytes: usize,
    pub max_connections: usize,
    pub resolve_timeout: Duration,
    pub connect_timeout: Duration,
}

impl Default for ProxyConfig {
    fn default() -> Self {
        ProxyConfig {
            ask_timeout: ASK_TIMEOUT,
            head_timeout: HEAD_TIMEOUT,
            max_head_bytes: MAX_HEAD_BYTES,
            max_connections: MAX_CONNECTIONS,
            resolve_timeout: RESOLVE_TIMEOUT,
            connect_timeout: CONNECT_TIMEOUT,
        }
    }
}

pub(crate) struct Shared {
    policy: RwLock<Arc<NetworkPolicy>>,
    config: ProxyConfig,
    resolver: Arc<dyn Resolver>,
    decider: Arc<dyn Decider>,
    events: Arc<dyn ConnectionSink>,
    own: Arc<OwnAddressCache>,
    permits: Arc<Semaphore>,
}

impl Shared {
    /// The policy as it is now; a connection keeps the one it started with.
    fn policy(&self) -> Arc<NetworkPolicy> {
        match self.policy.read() {
            Ok(policy) => policy.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

/// Builds a `Proxy`; by default it resolves with the system, refuses every question
/// (`DenyAsks`), drops its events (`NoEvents`) and knows this machine's addresses from the
/// process's cache (`addr::own`).
pub struct ProxyBuilder {
    policy: NetworkPolicy,
    config: ProxyConfig,
    resolver: Arc<dyn Resolver>,
    decider: Arc<dyn Decider>,
    events: Arc<dyn ConnectionSink>,
    own: Arc<OwnAddressCache>,
}

impl ProxyBuilder {
    pub fn config(mut self, config: ProxyConfig) -> Self {
        self.config = config;
        self
    }

    pub fn resolver(mut self, resolver: Arc<dyn Resolver>) -> Self {
        self.resolver = resolver;
        self
    }

    pub fn decider(mut self, decider: Arc<dyn Decider>) -> Self {
        self.decider = decider;
        self
    }

    pub fn events(mut self, events: Arc<dyn ConnectionSink>) -> Self {
        self.events = events;
        self
    }

    /// Where this machine's own addresses come from (tests give a list of their own).
    pub fn own_addresses(mut self, own: Arc<OwnAddressCache>) -> Self {
        self.own = own;
        self
    }

    pub fn build(self) -> Proxy {
        let permits = Arc::new(Semaphore::new(self.config.max_connections));
        Proxy {
            shared: Arc::new(Shared {
                policy: RwLock::new(Arc::new(self.policy)),
                config: self.config,
                resolver: self.resolver,
                decider: self.decider,
                events: self.events,
                own: self.own,
                permits,
            }),
        }
    }
}

/// The proxy; clones share it (policy, limits, hooks, connection count).
#[derive(Clone)]
pub struct Proxy {
    shared: Arc<Shared>,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Proxy")
            .field("policy", &self.shared.policy())
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

impl Proxy {
    pub fn builder(policy: NetworkPolicy) -> ProxyBuilder {
        ProxyBuilder {
            policy,
            config: ProxyConfig::default(),
            resolver: Arc::new(SystemResolver),
            decider: Arc::new(DenyAsks),
            events: Arc::new(NoEvents),
            own: system_cache().clone(),
        }
    }

    pub fn policy(&self) -> Arc<NetworkPolicy> {
        self.shared.policy()
    }

    /// Replaces the policy (a rule saved from a question, settings edited); connections
    /// already open keep going, new ones are decided by the new policy.
    pub fn set_policy(&self, policy: NetworkPolicy) {
        let policy = Arc::new(policy);
        match self.shared.policy.write() {
            Ok(mut slot) => *slot = policy,
            Err(poisoned) => *poisoned.into_inner() = policy,
        }
    }

    pub fn config(&self) -> &ProxyConfig {
        &self.shared.config
    }

    /// Serves one client connection to its end (or `call`'s) and reports it. The caller
    /// runs it on its own task (`spawn_connection` does). Any stream: wrap it in `Plain`
    /// if it is not a tokio socket.
    pub async fn serve_connection<S: ProxyStream>(&self, stream: S, call: &Call) {
        conn::serve(&self.shared, stream, call).await;
    }

    /// `serve_connection` on a task of its own.
    pub fn spawn_connection<S: ProxyStream + 'static>(
        &self,
        stream: S,
        call: Call,
    ) -> JoinHandle<()> {
        let proxy = self.clone();
        tokio::spawn(async move { proxy.serve_connection(stream, &call).await })
    }

    /// Accepts TCP clients for `call` until it is closed, each on its own task.
    pub async fn serve_tcp(&self, listener: TcpListener, call: Call) {
        loop {
            let accepted = tokio::select! {
                () = call.closed() => return,
                accepted = listener.accept() => accepted,
            };
            match accepted {
                Ok((stream, _)) => {
                    let _ = stream.set_nodelay(true);
                    self.spawn_connection(stream, call.clone());
                }
                Err(e) => {
                    tracing::warn!("proxy accept: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            }
        }
    }

    /// Accepts Unix-socket clients for `call` until it is closed, each on its own task.
    #[cfg(unix)]
    pub async fn serve_unix(&self, listener: tokio::net::UnixListener, call: Call) {
        loop {
            let accepted = tokio::select! {
                () = call.closed() => return,
                accepted = listener.accept() => accepted,
            };
            match accepted {
                Ok((stream, _)) => {
                    self.spawn_connection(stream, call.clone());
                }
                Err(e) => {
                    tracing::warn!("proxy accept: {e}");
                    tokio::time::sleep(ACCEPT_BACKOFF).await;
                }
            }
        }
    }
}
