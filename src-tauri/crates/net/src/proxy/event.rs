//! What the proxy tells its caller: one event per connection, sent when the connection
//! ends, for the transcript ("under the call that made it") and the logs.

use std::net::SocketAddr;

use serde::{Deserialize, Serialize};

use crate::policy::RuleRef;

/// The answer to a question about a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AskAnswer {
    Yes,
    No,
    /// No answer within the proxy's `ask_timeout` (or the call ended first): denied.
    TimedOut,
}

/// An address the proxy would not connect to, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedAddress {
    pub address: std::net::IpAddr,
    pub why: String,
}

/// One client connection to the proxy, from accept to close.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionEvent {
    /// The call's id (`Call::id`).
    pub call: String,
    /// `CONNECT`, or the method of a forwarded plain-HTTP request; `None` when no request
    /// head was read.
    pub method: Option<String>,
    /// The normalized host asked for; `None` when the request named none we could parse.
    pub host: Option<String>,
    pub port: Option<u16>,
    /// Whether a connection upstream was let through (it may still have failed).
    pub allowed: bool,
    /// Set when the user (the caller's decider) was asked.
    pub asked: Option<AskAnswer>,
    /// The rule that decided, if one did (none: no rule matched, or a bad request).
    pub rule: Option<RuleRef>,
    /// One line for people: why it was allowed or refused.
    pub why: String,
    /// The upstream address connected to.
    pub address: Option<SocketAddr>,
    /// Resolved addresses left out (loopback, private, metadata, denied, ...).
    pub refused_addresses: Vec<RefusedAddress>,
    /// The status the proxy itself answered with (200 for an open tunnel, 4xx/5xx for a
    /// refusal); `None` when the request was forwarded and the server answered.
    pub status: Option<u16>,
    /// Bytes from the client to the server (for forwarded HTTP, the rewritten head too).
    pub bytes_up: u64,
    /// Bytes from the server to the client.
    pub bytes_down: u64,
    pub duration_ms: u64,
    /// What went wrong, if anything did (including the call ending, the byte cap).
    pub error: Option<String>,
}

impl ConnectionEvent {
    pub(crate) fn new(call: &str) -> Self {
        ConnectionEvent {
            call: call.to_owned(),
            method: None,
            host: None,
            port: None,
            allowed: false,
            asked: None,
            rule: None,
            why: String::new(),
            address: None,
            refused_addresses: Vec::new(),
            status: None,
            bytes_up: 0,
            bytes_down: 0,
            duration_ms: 0,
            error: None,
        }
    }
}

/// Where connection events go. Called on the proxy's tasks: keep it quick (hand the event
/// to a channel).
pub trait ConnectionSink: Send + Sync {
    fn connection(&self, event: ConnectionEvent);
}

impl<F> ConnectionSink for F
where
    F: Fn(ConnectionEvent) + Send + Sync,
{
    fn connection(&self, event: ConnectionEvent) {
        self(event)
    }
}

/// Drops every event (they are still logged through `tracing`).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl ConnectionSink for NoEvents {
    fn connection(&self, _event: ConnectionEvent) {}
}
