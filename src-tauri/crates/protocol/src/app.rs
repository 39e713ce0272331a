//! What the desktop app's commands take and return, besides the core types. Generated into
//! TypeScript for the UI (ts-rs); see docs/desktop-ipc.md for the commands themselves.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{
    AgentEvent, Message, ProjectSettings, ProviderKind, SandboxStatus, SessionHeader, TokenUsage,
    TrustReport,
};

/// The one error every desktop command returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppError {
    pub code: AppErrorCode,
    /// A sentence the user can act on.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AppErrorCode {
    /// Bad arguments from the UI.
    Invalid,
    /// The project's settings file is broken or could not be saved.
    Settings,
    /// The model provider could not be reached or refused.
    Provider,
    /// No keychain, or it refused.
    Keychain,
    Session,
    /// Something that does not exist (project, session, file).
    NotFound,
    /// A path outside the workspace, or otherwise refused by the path rules.
    PathRefused,
    Io,
    /// A run is already going in this session.
    Busy,
    /// The folder's settings ask for things the user has not trusted yet.
    Untrusted,
    /// A worktree was asked for in a folder outside git: a plain copy of it works instead.
    NotARepository,
    Internal,
}

/// A project window's view of its project.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ProjectInfo {
    /// Absolute path, symlinks resolved.
    pub path: String,
    /// The folder's name.
    pub name: String,
    /// The settings, or `None` when the file is broken (see `settings_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub settings: Option<ProjectSettings>,
    /// Why the settings file could not be read; it is left untouched on disk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub settings_error: Option<String>,
    pub workspace_root: String,
    pub sandbox: SandboxStatus,
    /// What the settings would do that waits for the user's trust.
    pub trust: TrustReport,
    /// What the machine's managed policy fixes (the screens show it locked).
    #[serde(default)]
    pub managed: ManagedInfo,
}

/// What the machine's managed policy fixes, for the screens that show it locked. Empty
/// `files` (and no `error`): there is no policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ManagedInfo {
    /// The policy files read, in order.
    pub files: Vec<String>,
    /// Why the policy cannot be used; runs stop until an administrator fixes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub error: Option<String>,
    /// One phrase per thing it fixes.
    pub summary: Vec<String>,
    /// The widest preset a project may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_preset: Option<crate::ToolPreset>,
    /// The deny rules it adds, as `tool: pattern`.
    pub deny_rules: Vec<String>,
    /// bash never runs without the wall.
    pub require_wall: bool,
    /// bash never gets the whole network.
    pub forbid_bash_network: bool,
    /// The network lists are the policy's only.
    pub network_fixed: bool,
}

/// An entry of the recent-projects list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RecentProject {
    pub path: String,
    pub name: String,
    /// RFC 3339, in the machine's local offset.
    pub last_opened: String,
    /// False when the folder no longer exists.
    pub exists: bool,
}

/// One file or folder of the workspace tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceEntry {
    /// Relative to the workspace root, '/'-separated.
    pub path: String,
    pub is_dir: bool,
    #[ts(type = "number")]
    pub size: u64,
}

/// The workspace tree, capped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceTree {
    pub root: String,
    /// False when the workspace folder does not exist yet.
    pub exists: bool,
    pub entries: Vec<WorkspaceEntry>,
    /// More entries exist than were listed.
    pub truncated: bool,
}

/// Sent (debounced) when files in the workspace change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct WorkspaceChange {
    /// Changed paths, relative to the workspace root.
    pub paths: Vec<String>,
}

/// What `send_prompt` started: the session, and the feed its run's events come on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct RunStarted {
    pub session_id: String,
    /// Ask `next_run_events` with it for the run's events.
    #[ts(type = "number")]
    pub feed: u64,
}

/// What a feed holds since the page last asked (`next_run_events`, `next_workspace_changes`),
/// in order; `done`: nothing more will come, stop asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Batch<T> {
    pub items: Vec<T>,
    pub done: bool,
}

/// A click on one of a window's desktop notifications (`next_notification_click`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct NotificationClick {
    /// Counts the window's clicks; passed back as `after`, it waits for the next one.
    #[ts(type = "number")]
    pub seq: u64,
    /// The call to show; empty for a run's end.
    pub call_id: String,
}

/// A size-capped look at a workspace file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FilePreview {
    pub path: String,
    #[ts(type = "number")]
    pub size: u64,
    /// Binary files are not shown.
    pub binary: bool,
    /// Only the first part of the file is in `text`.
    pub truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub text: Option<String>,
}

/// Whether a provider has a key, never the key itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct KeyStatus {
    pub provider: ProviderKind,
    /// A key is stored in the OS keychain.
    pub stored: bool,
    /// The environment variable that would be used, when it is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub env_var: Option<String>,
    /// Why the keychain could not be asked, and how to fix it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub keychain_error: Option<String>,
}

/// One entry of the model dropdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ModelInfo {
    pub id: String,
    /// A friendlier name when the vendor has one ("Claude Sonnet 4").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub display_name: Option<String>,
    /// How many tokens the model holds, when the server's model list says (vLLM
    /// `max_model_len`, OpenRouter `context_length`, Anthropic `max_input_tokens`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_window: Option<u32>,
}

/// The outcome of a successful "test connection".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ConnectionReport {
    pub models: Vec<ModelInfo>,
    #[ts(type = "number")]
    pub latency_ms: u64,
    /// Whether the chosen model is offered (`None` when none was given or the server lists
    /// nothing, as some local servers do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model_available: Option<bool>,
}

/// A stored session, for the transcript view: whole, or its last turns (`omitted` then says
/// what was left out).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionTranscript {
    pub header: SessionHeader,
    pub messages: Vec<Message>,
    pub events: Vec<AgentEvent>,
    pub warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub omitted: Option<Omitted>,
}

/// The start of a session a transcript sent in part leaves out, up to a turn boundary.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, TS)]
pub struct Omitted {
    /// Prompts (runs) left out whole, before the first one sent.
    pub runs: u32,
    /// Turns left out at the start of the first run sent.
    pub turns: u32,
    /// Every turn left out: the whole runs' and the first run's.
    pub hidden_turns: u32,
    /// Token usage of the runs left out whole.
    pub usage: TokenUsage,
    /// What they cost (absent when none of them said).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cost: Option<crate::Cost>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ExportFormat {
    Markdown,
    Json,
}

/// How a model answered a request offering one harmless tool ("Test tool calling").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolProbeReport {
    /// `native`: in the API's tool-call fields; `text_fallback`: written in the text and
    /// read by Paddock; `prompted`: the server refused the `tools` parameter (or the
    /// settings say so), so the tools were described in the prompt and the call read from
    /// the text; `none`: not at all.
    pub mode: ToolCallMode,
    /// Calls with tools stream (false: the server refused, and is asked unstreamed).
    pub streaming: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub first_token_ms: Option<u64>,
    #[ts(type = "number")]
    pub total_ms: u64,
    pub context_window: u32,
    /// `server`, `table` or `default`.
    pub window_source: String,
    /// What to change when calls do not come back natively and streamed.
    pub advice: Vec<String>,
    /// One line saying what happened.
    pub detail: String,
    /// `auto` tool calling uses the prompted form with this server and model from now on
    /// (runs start that way, remembered across runs), and why; `None` when it asks natively.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub prompted_from_now_on: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolCallMode {
    Native,
    TextFallback,
    Prompted,
    None,
}
