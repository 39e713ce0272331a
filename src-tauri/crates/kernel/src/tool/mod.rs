//! The tool framework: the [`Tool`] trait, its typed layer, the registry and output limits.

mod coerce;
mod registry;
mod truncate;
mod typed;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use paddock_protocol::{TokenUsage, ToolSpec, WorkspaceMode};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::approval::Approvals;
use crate::events::EventSink;
use crate::sandbox::SandboxConfig;

pub use coerce::coerce_to_schema;
pub use registry::{RegistryError, ToolRegistry};
pub use truncate::truncate_middle;
pub use typed::{TypedTool, schema_for, typed};

/// What a tool hands back to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// Tokens spent on the caller's behalf (delegation); counts toward its budget.
    pub usage: Option<TokenUsage>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            usage: None,
        }
    }

    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            usage: None,
        }
    }

    pub fn with_usage(mut self, usage: TokenUsage) -> Self {
        self.usage = Some(usage);
        self
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

/// Configuration every tool of a run shares: where the workspace is, what to hide and how
/// bash is confined. The default has no workspace (file tools refuse) and the safest sandbox.
#[derive(Debug, Clone, Default)]
pub struct ToolEnv {
    /// Root of the agent's workspace; file tools stay inside it.
    pub workspace_root: PathBuf,
    /// Which folder the user picked as the workspace (shown in the sandbox status).
    pub workspace_mode: WorkspaceMode,
    /// Exact values to redact from tool output (API keys the host holds).
    pub secrets: Vec<String>,
    /// bash's OS sandbox: on/off, network grant, whether unconfined bash is acceptable,
    /// the session's private TMPDIR.
    pub sandbox: SandboxConfig,
}

/// Everything a running tool may use.
#[derive(Clone)]
pub struct ToolContext {
    pub call_id: String,
    /// Name of the agent making the call.
    pub agent: String,
    /// Agents from the root of the delegation chain down to `agent`, inclusive.
    pub chain: Arc<[String]>,
    pub cancel: CancellationToken,
    pub events: Arc<dyn EventSink>,
    pub env: Arc<ToolEnv>,
    pub registry: Arc<ToolRegistry>,
    pub approvals: Arc<Approvals>,
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

    async fn call(&self, input: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}
