//! The tool framework: the [`Tool`] trait, its typed layer, the registry and output limits.

mod coerce;
pub mod hooks;
mod registry;
mod summary;
mod truncate;
mod typed;

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use paddock_protocol::{
    CallPreview, Cost, FileChange, Grant, ImageBlock, SharedText, TokenUsage, ToolCall, ToolSpec,
    ToolStatus,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::approval::Approvals;
use crate::events::EventSink;
use crate::write_locks::{WriteLocks, WriteScope};

pub use coerce::{coerce_to_schema, coerced};
pub use paddock_protocol::near_miss;
pub use registry::{RegistryError, ToolRegistry};
pub use summary::{SUMMARY_CHARS, one_line, summarize_input};
pub use truncate::truncate_shared;
pub use typed::{TypedTool, schema_for, typed};

/// What a tool hands back to the model, and how the call ended.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// Shared, not copied, with the history's result and the finished call's event.
    pub content: SharedText,
    pub status: ToolStatus,
    /// Tokens spent on the caller's behalf (delegation); counts toward its budget.
    pub usage: Option<TokenUsage>,
    /// What `usage` cost (delegation: the teammate's own model's prices).
    pub cost: Option<Cost>,
    /// Images the model is shown with the result (`file_read` of an image file).
    pub images: Vec<ImageBlock>,
    /// What the call changed in the workspace's files, for cards and the session.
    pub changes: Vec<FileChange>,
    /// What decided whether the call could run (a rule, the tool's grant), set by the
    /// executor.
    pub why: String,
}

impl ToolOutput {
    pub fn ok(content: impl Into<SharedText>) -> Self {
        Self::with_status(ToolStatus::Ok, content)
    }

    /// The tool ran and failed; the model sees the text as an error.
    pub fn error(content: impl Into<SharedText>) -> Self {
        Self::with_status(ToolStatus::Failed, content)
    }

    pub fn with_status(status: ToolStatus, content: impl Into<SharedText>) -> Self {
        Self {
            content: content.into(),
            status,
            usage: None,
            cost: None,
            images: Vec::new(),
            changes: Vec::new(),
            why: String::new(),
        }
    }

    pub fn with_change(mut self, change: FileChange) -> Self {
        self.changes.push(change);
        self
    }

    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
    }

    pub fn with_image(mut self, image: ImageBlock) -> Self {
        self.images.push(image);
        self
    }

    pub fn with_cost(mut self, cost: Cost) -> Self {
        self.cost = Some(cost);
        self
    }

    pub fn is_error(&self) -> bool {
        !self.status.is_ok()
    }
}

/// How a tool call can fail. The executor turns both into error results the model sees.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The input did not match the schema: says which field and why.
    #[error("{0}")]
    InvalidInput(String),
    #[error("{0}")]
    Failed(String),
}

/// What every call gets from the run that makes it. A tool's own capabilities (the
/// workspace, a team to delegate to) come through its constructor instead.
#[derive(Clone)]
pub struct ToolContext {
    /// The call this context is for; None in a run's base context (see [`Self::for_call`]).
    pub call: Option<Arc<ToolCall>>,
    /// Name of the agent making the call.
    pub agent: Arc<str>,
    /// Agents from the root of the delegation chain down to `agent`, inclusive.
    pub chain: Arc<[String]>,
    /// Shared, not cloned per call: cloning or dropping a token takes its tree's lock.
    pub cancel: Arc<CancellationToken>,
    pub events: Arc<dyn EventSink>,
    /// The session's approvals: where an Ask is answered. A teammate started by this call
    /// shares them, so its questions reach the same person.
    pub approvals: Arc<Approvals>,
    /// What the calling agent may use (Allow or Ask per tool): a teammate it starts gets no
    /// more.
    pub grants: Arc<BTreeMap<String, Grant>>,
    /// The workspace's write locks, shared with teammates (see [`WriteLocks`]).
    pub writes: Arc<WriteLocks>,
    /// What the user approved, when the call was asked about with a preview. A tool that
    /// previews checks it still holds, so the change made is the change approved.
    pub approved: Option<Arc<CallPreview>>,
    /// What this conversation has already been given once (nested instruction files).
    pub told: Arc<Told>,
    /// The run's hooks (the user's commands before and after each call).
    pub hooks: Arc<dyn hooks::Hooks>,
}

impl ToolContext {
    /// This context for one call (the per-call copy the executor makes: reference counts
    /// only, no allocation).
    pub fn for_call(&self, call: &Arc<ToolCall>) -> Self {
        Self {
            call: Some(Arc::clone(call)),
            ..self.clone()
        }
    }

    /// The call's id; empty in a run's base context.
    pub fn call_id(&self) -> &str {
        self.call.as_deref().map_or("", |c| c.id.as_str())
    }
}

/// Marks text a tool adds to its result once per conversation, so it is not repeated: the
/// key is found again in the history of a resumed session.
pub const TOLD_MARK: &str = "<instructions from=\"";

/// The keys of what a conversation has been told (see [`TOLD_MARK`]).
#[derive(Debug, Default)]
pub struct Told(std::sync::Mutex<std::collections::HashSet<String>>);

impl Told {
    /// Everything the history's tool results already carry.
    pub fn from_history(messages: &[paddock_protocol::Message]) -> Self {
        let told = Self::default();
        for result in messages.iter().flat_map(|m| m.tool_results()) {
            let mut rest = result.content.as_str();
            while let Some(at) = rest.find(TOLD_MARK) {
                rest = &rest[at + TOLD_MARK.len()..];
                if let Some(end) = rest.find('"') {
                    told.first_time(&rest[..end]);
                }
            }
        }
        told
    }

    /// True the first time `key` is seen.
    pub fn first_time(&self, key: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key.to_owned())
    }
}

/// A tool the model can call. Implement [`TypedTool`] instead unless the input is dynamic
/// (MCP tools): it derives the schema and validates input for you.
#[async_trait]
pub trait Tool: Send + Sync {
    fn spec(&self) -> &ToolSpec;

    /// Cut output beyond this many characters (head and tail kept).
    fn max_output_chars(&self) -> Option<usize> {
        None
    }

    /// Per-call time limit; `None` uses the executor's default.
    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// Whether a call can change files or run programs. Assumed unless a tool says
    /// otherwise, so a new tool is never taken for read-only by mistake.
    fn mutates(&self) -> bool {
        true
    }

    /// One line saying what a call does (a path, a command), for cards, approvals and the
    /// CLI. `input` is as the model sent it: it may not match the schema.
    fn summary(&self, input: &Value) -> String {
        summarize_input(input)
    }

    /// Whether a call may change the workspace's files, directly or through others (a
    /// teammate): the run records the workspace before such calls.
    fn changes_workspace(&self) -> bool {
        self.mutates()
    }

    /// What a call may change in the workspace, so calls on the same file run one after
    /// another. A tool that does not say (an MCP tool) may change anything when it
    /// [`mutates`](Tool::mutates): it runs alone among writers, and never while a project
    /// hook's checked script is about to run.
    fn write_scope(&self, _input: &Value) -> WriteScope {
        if self.mutates() {
            WriteScope::Workspace
        } else {
            WriteScope::None
        }
    }

    /// What a call would do, worked out without doing it, for its approval request.
    async fn preview(&self, _input: &Value) -> Option<CallPreview> {
        None
    }

    /// Runs the call. The input is the history's: a tool that needs it changed copies it.
    async fn call(&self, input: &Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;

    /// What the executor runs: the call's write scope and the call itself, which does
    /// nothing until polled (after the lock is held). Typed tools read the input once for
    /// both.
    fn prepare<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> PreparedCall<'a> {
        PreparedCall {
            scope: self.write_scope(input),
            run: self.call(input, ctx),
        }
    }
}

/// A call's running part, as [`Tool::call`] returns it.
pub type CallFuture<'a> = Pin<Box<dyn Future<Output = Result<ToolOutput, ToolError>> + Send + 'a>>;

/// A call ready to run (see [`Tool::prepare`]).
pub struct PreparedCall<'a> {
    pub scope: WriteScope,
    pub run: CallFuture<'a>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tool that says nothing of its scope, like an MCP tool.
    struct Raw {
        spec: ToolSpec,
        mutates: bool,
    }

    #[async_trait]
    impl Tool for Raw {
        fn spec(&self) -> &ToolSpec {
            &self.spec
        }
        fn mutates(&self) -> bool {
            self.mutates
        }
        async fn call(&self, _input: &Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::ok("ran"))
        }
    }

    /// Such a tool that may change things runs alone among writers (a project hook's checked
    /// script waits for it, and it for the hook); one that only reads takes no lock. It took
    /// none whatever it did.
    #[test]
    fn a_tool_silent_on_its_scope_locks_the_workspace_when_it_mutates() {
        let raw = |mutates| Raw {
            spec: ToolSpec {
                name: "mcp__fs__write".into(),
                description: String::new(),
                input_schema: serde_json::json!({"type": "object"}),
            },
            mutates,
        };
        let input = serde_json::json!({});
        assert_eq!(raw(true).write_scope(&input), WriteScope::Workspace);
        assert_eq!(raw(false).write_scope(&input), WriteScope::None);
    }
}
