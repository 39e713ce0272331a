//! Paddock's agent kernel: the conversation loop, the tool framework, default-deny grants
//! and the built-in tools. It knows nothing of HTTP vendors, MCP or Tauri: providers and
//! hosts plug in through [`Model`], [`Tool`] and [`EventSink`].

pub mod agent;
pub mod approval;
pub mod events;
pub mod executor;
pub mod grants;
pub mod loop_detect;
pub mod model;
mod response;
pub mod runner;
pub mod sandbox;
pub mod scripted;
pub mod session;
pub mod settings;
pub mod structured;
pub mod tool;
pub mod tools;

pub use paddock_protocol as protocol;

pub use agent::{Agent, AgentConfig, AgentHandle, AgentResult};
pub use approval::{ApprovalError, Approvals, AskPolicy};
pub use events::{CollectSink, EventSink, Fanout, FnSink, NullSink};
pub use executor::{ExecutorLimits, ToolExecutor};
pub use grants::{Gate, GrantPolicy, ResolvedTools};
pub use loop_detect::{LoopConfig, LoopPolicy};
pub use model::{Model, ModelError, ModelEvent, ModelRequest, ModelStream, OwnedRequest};
pub use runner::{Checkpoint, RunConfig, RunOutcome, Runner};
pub use sandbox::{PathGuard, SandboxConfig};
pub use tool::{Tool, ToolContext, ToolEnv, ToolError, ToolOutput, ToolRegistry, TypedTool};
