//! bash's network when it is an allow-list: each call gets its own listener of the proxy (a
//! Unix socket in Paddock's private runtime folder, bound into the wall), so its connections
//! are its own — decided by the project's policy, ended with the call, and reported under
//! it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use paddock_core::ToolContext;
use paddock_core::approval::Verdict;
use paddock_net::proxy::BoxFuture;
use paddock_net::{
    AskRequest, Call, CallLimits, ConnectionEvent, ConnectionSink, Decider, Proxy, ProxyBuilder,
};
use paddock_protocol::{AgentEvent, CallPreview, NetworkConnection};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// How long a call's connections get to report after it ended.
const REPORT_GRACE: Duration = Duration::from_secs(1);
/// The pause after a failed accept, so the loop does not spin.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);
/// Lines of connections in a result; the rest are counted.
pub const MAX_CONNECTION_LINES: usize = 12;
/// Connections of one call shown live as events (and kept in the session); the result's
/// lines count them all.
pub const MAX_CONNECTION_EVENTS: usize = 100;

/// Who answers a call's questions about hosts.
pub type Asker = Arc<dyn Fn(AskRequest) -> BoxFuture<bool> + Send + Sync>;

/// The project's proxy and what its calls' connections did.
#[derive(Clone)]
pub struct NetworkFence {
    proxy: Proxy,
    log: Arc<ConnectionLog>,
    askers: Arc<Askers>,
    limits: CallLimits,
}

impl std::fmt::Debug for NetworkFence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkFence")
            .field("proxy", &self.proxy)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl NetworkFence {
    /// A fence around `builder`'s proxy (its policy, resolver and decider); the fence
    /// collects the events. `limits` apply to each call.
    /// The fence collects the events and puts each question to the call that asked it
    /// (the user, through the call's approvals); `limits` apply to each call.
    pub fn new(builder: ProxyBuilder, limits: CallLimits) -> Self {
        let log = Arc::new(ConnectionLog::default());
        let askers = Arc::new(Askers::default());
        let proxy = builder.events(log.clone()).decider(askers.clone()).build();
        Self {
            proxy,
            log,
            askers,
            limits,
        }
    }

    /// What each call may use.
    pub fn limits(&self) -> CallLimits {
        self.limits
    }

    pub fn proxy(&self) -> &Proxy {
        &self.proxy
    }

    /// Rules in the policy, for the status.
    pub fn rule_count(&self) -> usize {
        let policy = self.proxy.policy();
        policy.allow.len() + policy.ask.len() + policy.deny.len()
    }

    /// Opens a listener for one call, ended when `cancel` is (or by `finish`).
    pub fn open(
        &self,
        id: &str,
        cancel: &CancellationToken,
        asker: Option<Asker>,
        events: Option<Arc<dyn paddock_core::EventSink>>,
    ) -> std::io::Result<CallGate> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let dir = paddock_sandbox::runtime_dir().ok_or_else(|| {
            std::io::Error::other("Paddock's private runtime folder is not usable")
        })?;
        let socket = dir.join(format!(
            "net-{}-{}.sock",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_file(&socket);
        let listener = tokio::net::UnixListener::bind(&socket)?;
        let call = Call::child_of(id, cancel, self.limits);
        if let Some(asker) = asker {
            lock(&self.askers.0).insert(id.to_owned(), asker);
        }
        if let Some(events) = events {
            lock(&self.log.sinks).insert(id.to_owned(), (events, 0));
        }
        let (proxy, serving) = (self.proxy.clone(), call.clone());
        let accept = tokio::spawn(async move {
            let mut connections = Vec::new();
            loop {
                let accepted = tokio::select! {
                    () = serving.closed() => return connections,
                    accepted = listener.accept() => accepted,
                };
                match accepted {
                    Ok((stream, _)) => {
                        connections.push(proxy.spawn_connection(stream, serving.clone()));
                    }
                    Err(_) => tokio::time::sleep(ACCEPT_BACKOFF).await,
                }
            }
        });
        Ok(CallGate {
            socket,
            call,
            accept: Some(accept),
            log: self.log.clone(),
            askers: self.askers.clone(),
        })
    }
}

/// One call's listener; dropped, it ends the call's connections and removes its socket.
pub struct CallGate {
    pub socket: PathBuf,
    call: Call,
    accept: Option<JoinHandle<Vec<JoinHandle<()>>>>,
    log: Arc<ConnectionLog>,
    askers: Arc<Askers>,
}

impl CallGate {
    /// Ends the call's connections and returns what they did, in the order they ended.
    pub async fn finish(mut self) -> Vec<ConnectionEvent> {
        self.call.close();
        let connections = match self.accept.take() {
            Some(accept) => accept.await.unwrap_or_default(),
            None => Vec::new(),
        };
        for connection in connections {
            let abort = connection.abort_handle();
            if tokio::time::timeout(REPORT_GRACE, connection)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
        self.log.take(self.call.id())
    }
}

impl Drop for CallGate {
    fn drop(&mut self) {
        self.call.close();
        lock(&self.askers.0).remove(self.call.id());
        let _ = std::fs::remove_file(&self.socket);
        self.log.take(self.call.id());
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Events by call id until the call takes them, each also shown live to its call's
/// observers.
/// Where a call's events are shown, and how many were.
type Shown = (Arc<dyn paddock_core::EventSink>, usize);

#[derive(Default)]
struct ConnectionLog {
    events: Mutex<HashMap<String, Vec<ConnectionEvent>>>,
    sinks: Mutex<HashMap<String, Shown>>,
}

impl ConnectionLog {
    fn take(&self, call: &str) -> Vec<ConnectionEvent> {
        lock(&self.sinks).remove(call);
        lock(&self.events).remove(call).unwrap_or_default()
    }
}

impl ConnectionSink for ConnectionLog {
    fn connection(&self, event: ConnectionEvent) {
        let sink = match lock(&self.sinks).get_mut(&event.call) {
            Some((sink, shown)) if *shown < MAX_CONNECTION_EVENTS => {
                *shown += 1;
                Some(sink.clone())
            }
            _ => None,
        };
        if let Some(sink) = sink {
            sink.emit(AgentEvent::Connection(shown(&event)));
        }
        lock(&self.events)
            .entry(event.call.clone())
            .or_default()
            .push(event);
    }
}

/// A connection as the transcript shows it.
fn shown(e: &ConnectionEvent) -> NetworkConnection {
    NetworkConnection {
        call_id: e.call.clone(),
        method: e.method.clone(),
        host: e.host.clone(),
        port: e.port,
        allowed: e.allowed,
        asked: e.asked.is_some(),
        rule: e.rule.as_ref().map(ToString::to_string),
        why: e.why.clone(),
        bytes_up: e.bytes_up,
        bytes_down: e.bytes_down,
        duration_ms: e.duration_ms,
        error: e.error.clone(),
    }
}

/// The narrowest allow rule for `host:port` (an IPv6 address in brackets).
pub fn rule_for(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The askers of the calls now running; a question from a call without one is refused.
#[derive(Default)]
struct Askers(Mutex<HashMap<String, Asker>>);

impl Decider for Askers {
    fn decide(&self, request: AskRequest) -> BoxFuture<bool> {
        match lock(&self.0).get(&request.call).cloned() {
            Some(asker) => asker(request),
            None => Box::pin(async { false }),
        }
    }
}

/// Asks the user about a host through the call's approvals: "bash wants to reach host:443".
/// Nobody to ask (headless) is a refusal, whatever the run's Ask policy: only a rule (or
/// `--allow-host`) widens the network there.
pub fn asker_for(ctx: &ToolContext) -> Option<Asker> {
    let call = ctx.call.clone()?;
    Some(asker(
        call,
        ctx.approvals.clone(),
        ctx.events.clone(),
        ctx.cancel.clone(),
    ))
}

/// The same for any program Paddock runs behind the wall (an external agent): `call` names
/// it on the approval card.
pub fn asker(
    call: Arc<paddock_protocol::ToolCall>,
    approvals: Arc<paddock_core::Approvals>,
    events: Arc<dyn paddock_core::EventSink>,
    cancel: Arc<CancellationToken>,
) -> Asker {
    Arc::new(move |request: AskRequest| {
        let (call, approvals, events, cancel) = (
            call.clone(),
            approvals.clone(),
            events.clone(),
            cancel.clone(),
        );
        Box::pin(async move {
            let summary = format!(
                "{} wants to reach {}:{}",
                call.name, request.host, request.port
            );
            let preview = CallPreview::Network {
                rule: rule_for(&request.host, request.port),
                host: request.host,
                port: request.port,
                method: request.method,
                why: request.decision.why.clone(),
            };
            let verdict = approvals
                .confirm(
                    &call,
                    &summary,
                    Some(&preview),
                    &request.decision.why,
                    events.as_ref(),
                    &cancel,
                )
                .await;
            matches!(verdict, Verdict::Approved)
        })
    })
}

/// What a call's connections did, a line per host, port and outcome, for its result.
pub fn describe(events: &[ConnectionEvent]) -> Option<String> {
    if events.is_empty() {
        return None;
    }
    let mut lines: Vec<Line> = Vec::new();
    for e in events {
        let target = match (&e.host, e.port) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.clone(),
            _ => "(no host named)".to_owned(),
        };
        match lines
            .iter_mut()
            .find(|l| l.target == target && l.allowed == e.allowed)
        {
            Some(line) => {
                line.count += 1;
                line.down += e.bytes_down;
                line.up += e.bytes_up;
            }
            None => lines.push(Line {
                target,
                allowed: e.allowed,
                count: 1,
                down: e.bytes_down,
                up: e.bytes_up,
                why: why_of(e),
            }),
        }
    }
    let mut text = format!(
        "[network: {} connection{} through the proxy]",
        events.len(),
        if events.len() == 1 { "" } else { "s" }
    );
    for line in lines.iter().take(MAX_CONNECTION_LINES) {
        let Line {
            target,
            allowed,
            count,
            down,
            up,
            why,
        } = line;
        let times = if *count > 1 {
            format!(" ×{count}")
        } else {
            String::new()
        };
        if *allowed {
            text.push_str(&format!(
                "\n  allowed {target}{times}: {why}; {down} bytes down, {up} up"
            ));
        } else {
            text.push_str(&format!("\n  refused {target}{times}: {why}"));
        }
    }
    if lines.len() > MAX_CONNECTION_LINES {
        text.push_str(&format!(
            "\n  and {} more",
            lines.len() - MAX_CONNECTION_LINES
        ));
    }
    Some(text)
}

/// The connections to one target with one outcome.
struct Line {
    target: String,
    allowed: bool,
    count: usize,
    down: u64,
    up: u64,
    why: String,
}

fn why_of(e: &ConnectionEvent) -> String {
    match &e.error {
        Some(error) if e.allowed => format!("{} ({error})", e.why),
        _ => e.why.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(host: &str, allowed: bool, down: u64) -> ConnectionEvent {
        let mut e: ConnectionEvent = serde_json::from_value(serde_json::json!({
            "call": "c", "method": "CONNECT", "host": host, "port": 443, "allowed": allowed,
            "asked": null, "rule": null, "why": format!("why {host}"), "address": null,
            "refused_addresses": [], "status": null, "bytes_up": 1, "bytes_down": down,
            "duration_ms": 3, "error": null
        }))
        .unwrap();
        e.allowed = allowed;
        e
    }

    #[test]
    fn connections_are_grouped_by_host_and_outcome_and_bounded() {
        assert_eq!(describe(&[]), None);
        let text = describe(&[
            event("a.example", true, 10),
            event("a.example", true, 5),
            event("b.example", false, 0),
        ])
        .unwrap();
        assert_eq!(
            text,
            "[network: 3 connections through the proxy]\n  allowed a.example:443 ×2: why \
             a.example; 15 bytes down, 2 up\n  refused b.example:443: why b.example"
        );
        let many: Vec<ConnectionEvent> = (0..20)
            .map(|i| event(&format!("h{i}.example"), false, 0))
            .collect();
        let text = describe(&many).unwrap();
        assert_eq!(text.lines().count(), 1 + MAX_CONNECTION_LINES + 1);
        assert!(text.ends_with("and 8 more"), "{text}");
    }
}
