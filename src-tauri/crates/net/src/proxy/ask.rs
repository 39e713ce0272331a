//! Asking about a host no rule settles: the caller's decider (the app's "bash wants to
//! reach host:443" card; headless, a refusal) answers, within a bounded time.

use std::future::Future;

use serde::{Deserialize, Serialize};

use crate::policy::Decision;
use crate::proxy::resolve::BoxFuture;

/// What the decider is asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AskRequest {
    /// The call's id (`Call::id`).
    pub call: String,
    /// `CONNECT` or the plain-HTTP method.
    pub method: String,
    /// The normalized host.
    pub host: String,
    pub port: u16,
    /// The policy's decision (an ask rule, or none matched), for the card's "why".
    pub decision: Decision,
}

/// Answers questions about hosts: `true` lets the connection through. An answer holds for
/// the host and port for the rest of the call; saving it as a rule ("Always") is the
/// caller's business (`Proxy::set_policy`). A question not answered within the proxy's
/// `ask_timeout` is a refusal.
pub trait Decider: Send + Sync {
    fn decide(&self, request: AskRequest) -> BoxFuture<bool>;
}

impl<F, Fut> Decider for F
where
    F: Fn(AskRequest) -> Fut + Send + Sync,
    Fut: Future<Output = bool> + Send + 'static,
{
    fn decide(&self, request: AskRequest) -> BoxFuture<bool> {
        Box::pin(self(request))
    }
}

/// Refuses every question: headless runs, where nobody can answer.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAsks;

impl Decider for DenyAsks {
    fn decide(&self, _request: AskRequest) -> BoxFuture<bool> {
        Box::pin(async { false })
    }
}
