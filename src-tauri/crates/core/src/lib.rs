//! Paddock's agent loop and its tool framework: the [`Model`] and [`Tool`] traits, the
//! runner, the executor with its per-call gate, default-deny grants, approvals and events.
//! It knows nothing of HTTP vendors, MCP, the OS sandbox or Tauri: providers, tools and hosts
//! plug in through [`Model`], [`Tool`] and [`EventSink`].

pub mod agent;
pub mod approval;
mod blocking;
mod calibration;
pub mod compaction;
pub mod events;
pub mod executor;
pub mod grants;
pub mod loop_detect;
pub mod model;
pub mod recorder;
mod response;
pub mod rules;
pub mod runner;
#[cfg(feature = "test-support")]
pub mod scripted;
pub mod structured;
#[cfg(feature = "test-support")]
pub mod testing;
pub mod tool;
pub mod write_locks;

pub use paddock_protocol as protocol;

pub use agent::{Agent, AgentConfig, AgentHandle, AgentResult};
pub use approval::{ApprovalError, Approvals, AskPolicy};
pub use blocking::blocking;
pub use compaction::{CompactError, CompactionConfig};
pub use events::{CollectSink, EventSink, Fanout, FnSink, NullSink};
pub use executor::{ExecutorLimits, ToolExecutor};
pub use grants::{Decision, Gate, GrantPolicy, ResolvedTools};
pub use hooks::{HookVerdict, Hooks, NoHooks, PreToolUse, PromptVerdict};
pub use loop_detect::{LoopConfig, LoopPolicy};
pub use model::{Model, ModelError, ModelEvent, ModelRequest, ModelStream, OwnedRequest};
pub use recorder::{RecordError, Recorded, WorkspaceRecorder};
pub use rules::{CallRules, RuleBook, RuleVerdict};
pub use runner::{HistoryLog, RunConfig, RunOutcome, Runner};
pub use tool::hooks;
pub use tool::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
pub use write_locks::{WriteLocks, WriteScope};
