//! Types shared by every Paddock crate and the UI: messages, usage, events, grants.
//!
//! Everything here is plain data (serde + ts-rs). No async runtime, no HTTP, no Tauri.

mod agents;
mod app;
mod attach;
mod changes;
mod context;
mod cost;
mod events;
#[doc(hidden)]
pub mod generated;
mod grants;
mod hook;
mod mcp;
mod message;
mod names;
mod network;
mod plan;
mod prompts;
mod sandbox;
mod session;
mod settings;
mod text;
mod trust;
mod updates;
mod usage;
mod worktree;

pub use agents::{AgentKey, ExternalAgentConfig, ExternalAgentInfo, ExternalAgentWall, KnownAgent};
pub use app::{
    AppError, AppErrorCode, Batch, ConnectionReport, ExportFormat, FilePreview, KeyStatus,
    ManagedInfo, ModelInfo, NotificationClick, Omitted, ProjectInfo, RecentProject, RunStarted,
    SessionTranscript, ToolCallMode, ToolProbeReport, WorkspaceChange, WorkspaceEntry,
    WorkspaceTree,
};
pub use attach::{ImageBlock, ImageData, Mention, MentionCandidate, PromptAttachment, PromptInput};
pub use changes::{
    CallPreview, ChangeKind, ChangeSummary, CheckpointInfo, CheckpointState, CheckpointStatus,
    DiffBody, DiffHunk, DiffLine, FileChange, LineEnd, LineOp, ModeChange, RewindInfo, RewindMode,
    RewindPreview,
};
pub use context::{
    CompactionInfo, CompactionReason, ContextInfo, InstructionFile, ProjectInstructions,
};
pub use cost::{Cost, Price, Pricing, dollars};
pub use events::{
    AgentEvent, DenyReason, ErrorKind, ExitReason, LoopAction, LoopKind, Retry, ToolStatus,
};
pub use grants::{ApprovalDecision, CallExplanation, Grant, ToolGrantInfo, ToolPreset, ToolSpec};
pub use hook::{HookInfo, HookOutcome, HookPoint, HookRun};
pub use mcp::{McpServerState, McpServerStatus};
pub use message::{ContentBlock, Message, Role, StopReason, ToolCall, ToolResult};
pub use names::near_miss;
pub use network::{
    BashNetwork, NetworkConnection, NetworkPreset, NetworkPresetInfo, NetworkSettings, NetworkView,
};
pub use plan::{Plan, PlanItem, PlanStatus};
pub use prompts::{ExpandedPrompt, PromptSource, PromptStatus, SavedPrompt};
pub use sandbox::{
    AGENT_WORKSPACE_DIR, EngineCheck, Protection, ProtectionKind, ProtectionState, SandboxEngine,
    SandboxStatus, WorkspaceMode,
};
pub use session::{SESSION_FORMAT, SearchHit, SessionHeader, SessionRecord, SessionSummary};
pub use settings::{
    CompactionSettings, McpServerConfig, McpServerKind, McpTransport, ProjectSettings,
    ProviderKind, RuleEntry, SETTINGS_VERSION, TIMEOUT_MS_FROM, TeammateSettings, ToolCalling,
    TransportError,
};
pub use text::SharedText;
pub use trust::{TrustItem, TrustReport, TrustState};
pub use updates::{AboutInfo, InstallKind, UpdateCheck, UpdateOffer};
pub use usage::TokenUsage;
pub use worktree::{
    BranchList, CopiedFiles, MergeOutcome, WorktreeChanges, WorktreeCreated, WorktreeInfo,
    WorktreeLanded, WorktreeLanding, WorktreeSettings, WorktreeSetup, WorktreeState,
};
