//! Ask-state tools: a call waits here until the user answers, the run is cancelled, or the
//! headless policy decides.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use paddock_protocol::{AgentEvent, ApprovalDecision, CallPreview, DenyReason, ToolCall};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::events::EventSink;

/// Who answers approval requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AskPolicy {
    /// A person answers through [`Approvals::resolve`] (desktop, interactive CLI).
    Interactive,
    /// Nobody can answer: Ask means deny (the headless default).
    #[default]
    HeadlessDeny,
    /// Nobody can answer and the caller accepted that Ask means allow.
    HeadlessAllow,
}

/// How an approval request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Approved,
    /// Why, as a status and in words for the model.
    Denied(DenyReason, String),
    Aborted,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApprovalError {
    #[error("no pending approval request '{0}' (already answered, or the run ended)")]
    UnknownRequest(String),
}

/// Pending approval requests and the tools approved for the rest of the session.
#[derive(Debug, Default)]
pub struct Approvals {
    policy: AskPolicy,
    next_id: AtomicU64,
    pending: Mutex<HashMap<String, oneshot::Sender<ApprovalDecision>>>,
    session_allowed: Mutex<HashSet<String>>,
}

impl Approvals {
    pub fn new(policy: AskPolicy) -> Self {
        Self {
            policy,
            ..Self::default()
        }
    }

    pub fn policy(&self) -> AskPolicy {
        self.policy
    }

    /// Answers a pending request. Safe to call from any thread.
    pub fn resolve(
        &self,
        request_id: &str,
        decision: ApprovalDecision,
    ) -> Result<(), ApprovalError> {
        let sender = lock(&self.pending).remove(request_id);
        match sender.map(|tx| tx.send(decision)) {
            Some(Ok(())) => Ok(()),
            _ => Err(ApprovalError::UnknownRequest(request_id.to_owned())),
        }
    }

    /// Request ids still waiting for an answer.
    pub fn pending(&self) -> Vec<String> {
        let mut ids: Vec<String> = lock(&self.pending).keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Tools the user approved "for this session".
    pub fn session_allowed(&self) -> Vec<String> {
        let mut names: Vec<String> = lock(&self.session_allowed).iter().cloned().collect();
        names.sort();
        names
    }

    /// Waits for a decision on `call`, emitting the request and its resolution.
    pub async fn request(
        &self,
        call: &ToolCall,
        summary: &str,
        preview: Option<&CallPreview>,
        why: Reason<'_>,
        events: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Verdict {
        if lock(&self.session_allowed).contains(&call.name) {
            return Verdict::Approved;
        }
        match self.policy {
            AskPolicy::HeadlessDeny => {
                return Verdict::Denied(
                    DenyReason::NoApprover,
                    format!(
                        "'{}' needs the user's approval and nobody can approve in this headless run; \
                     it was denied",
                        call.name
                    ),
                );
            }
            AskPolicy::HeadlessAllow => return Verdict::Approved,
            AskPolicy::Interactive => {}
        }
        match self.ask(call, summary, preview, why, events, cancel).await {
            Some(ApprovalDecision::Session) => {
                lock(&self.session_allowed).insert(call.name.clone());
                Verdict::Approved
            }
            Some(decision) => verdict_of(decision, call),
            None => Verdict::Aborted,
        }
    }

    /// Waits for the user's yes on something that is never kept unseen (a change the wall
    /// held): an earlier "for this session" does not answer it, "for this session" answers
    /// only this once, and no headless run keeps it, whatever its Ask policy.
    pub async fn confirm(
        &self,
        call: &ToolCall,
        summary: &str,
        preview: Option<&CallPreview>,
        why: &str,
        events: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Verdict {
        if self.policy != AskPolicy::Interactive {
            return Verdict::Denied(
                DenyReason::NoApprover,
                "this needs the user's approval and nobody can approve in this headless run"
                    .to_owned(),
            );
        }
        match self
            .ask(call, summary, preview, (why, None).into(), events, cancel)
            .await
        {
            Some(ApprovalDecision::Session) => Verdict::Approved,
            Some(decision) => verdict_of(decision, call),
            None => Verdict::Aborted,
        }
    }

    /// Emits the request and waits for its answer; `None` when the run was cancelled.
    async fn ask(
        &self,
        call: &ToolCall,
        summary: &str,
        preview: Option<&CallPreview>,
        why: Reason<'_>,
        events: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Option<ApprovalDecision> {
        let n = self.next_id.fetch_add(1, Ordering::Relaxed) + 1;
        let request_id = format!("approval-{n}");
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(request_id.clone(), tx);
        events.emit(AgentEvent::ApprovalRequested {
            request_id: request_id.clone(),
            call: call.clone(),
            summary: summary.to_owned(),
            why: why.why.to_owned(),
            proposed_rules: why.rules,
            rules_for_agent: why.rules_for_agent,
            preview: preview.cloned(),
        });
        let decision = tokio::select! {
            answer = rx => answer.ok(),
            () = cancel.cancelled() => None,
        };
        lock(&self.pending).remove(&request_id);
        let decision = decision?;
        events.emit(AgentEvent::ApprovalResolved {
            request_id,
            decision,
        });
        Some(decision)
    }
}

/// Why a call asks, and what "Always allow" would save where.
#[derive(Debug, Clone, Default)]
pub struct Reason<'a> {
    pub why: &'a str,
    /// The narrowest rules that would allow calls like it; none: no such button.
    pub rules: Option<Vec<String>>,
    /// An external agent's name when the rules are its own (its `agents.json` entry).
    pub rules_for_agent: Option<String>,
}

impl<'a> From<(&'a str, Option<Vec<String>>)> for Reason<'a> {
    fn from((why, rules): (&'a str, Option<Vec<String>>)) -> Self {
        Self {
            why,
            rules,
            rules_for_agent: None,
        }
    }
}

/// What an answer other than "for this session" means.
fn verdict_of(decision: ApprovalDecision, call: &ToolCall) -> Verdict {
    match decision {
        ApprovalDecision::Once | ApprovalDecision::Session => Verdict::Approved,
        ApprovalDecision::Deny => Verdict::Denied(
            DenyReason::User,
            format!("the user denied this call to '{}'", call.name),
        ),
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
