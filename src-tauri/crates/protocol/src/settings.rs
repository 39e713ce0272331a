//! Per-project settings, stored as `<project>/.paddock/settings.json`. Never holds a secret:
//! API keys live in the OS keychain.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::{Grant, NetworkSettings, ToolPreset, WorkspaceMode, WorktreeSettings};

/// The settings format this Paddock reads and writes.
pub const SETTINGS_VERSION: u32 = 1;

/// Which wire protocol a model speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
pub enum ProviderKind {
    #[serde(rename = "anthropic")]
    Anthropic,
    #[serde(rename = "openai")]
    OpenAi,
    /// Ollama, vLLM, LM Studio, llama.cpp server and other Chat Completions servers.
    #[serde(rename = "openai-compatible")]
    OpenAiCompatible,
}

impl ProviderKind {
    pub const ALL: [ProviderKind; 3] = [Self::Anthropic, Self::OpenAi, Self::OpenAiCompatible];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
            Self::OpenAiCompatible => "openai-compatible",
        }
    }

    /// A name for messages ("Anthropic rejected the API key").
    pub fn label(self) -> &'static str {
        match self {
            Self::Anthropic => "Anthropic",
            Self::OpenAi => "OpenAI",
            Self::OpenAiCompatible => "the OpenAI-compatible server",
        }
    }

    /// The environment variable read for a key when no keychain is at hand (headless runs).
    pub fn key_env_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_API_KEY",
            Self::OpenAi => "OPENAI_API_KEY",
            Self::OpenAiCompatible => "PADDOCK_OPENAI_COMPAT_API_KEY",
        }
    }

    /// The environment variable read for the base URL when the settings have none.
    pub fn base_url_env_var(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_BASE_URL",
            Self::OpenAi => "OPENAI_BASE_URL",
            Self::OpenAiCompatible => "PADDOCK_OPENAI_COMPAT_BASE_URL",
        }
    }

    /// Whether a request without a key is pointless (local servers usually need none).
    pub fn requires_key(self) -> bool {
        !matches!(self, Self::OpenAiCompatible)
    }

    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            Self::Anthropic => Some("https://api.anthropic.com"),
            Self::OpenAi => Some("https://api.openai.com/v1"),
            Self::OpenAiCompatible => None,
        }
    }
}

impl std::fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for ProviderKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| {
                format!("unknown provider '{s}' (expected anthropic, openai or openai-compatible)")
            })
    }
}

/// Settings of one project. Every field is optional in the file; missing ones take defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectSettings {
    /// The JSON schema editors validate against (kept, not read).
    #[serde(default, rename = "$schema", skip_serializing_if = "Option::is_none")]
    #[ts(optional, rename = "$schema")]
    pub schema: Option<String>,
    /// Format version; this Paddock understands 1.
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub provider: Option<ProviderKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    /// Server address for openai-compatible providers (e.g. http://localhost:11434/v1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub base_url: Option<String>,
    /// Text added to Paddock's own system prompt (or put in its place, with
    /// `replaceSystemPrompt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// Send `systemPrompt` instead of Paddock's own system prompt, not after it.
    #[serde(default, skip_serializing_if = "is_false")]
    #[ts(optional = nullable)]
    pub replace_system_prompt: bool,
    /// The model's context window in tokens, when Paddock cannot learn it from the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub context_window: Option<u32>,
    /// When the conversation is compacted to make room.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub compaction: Option<CompactionSettings>,
    /// Longest reply, in tokens, asked of the model per call. Unset: 4096 for
    /// openai-compatible servers (a small model can otherwise stream for minutes), the
    /// provider's own limit for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_output_tokens: Option<u32>,
    /// Whether the model takes images. Unset: Paddock's list of hosted models decides, and
    /// an openai-compatible server's model is sent images and may refuse them itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub images: Option<bool>,
    /// How an openai-compatible server is told about the tools: `auto` (the `tools`
    /// parameter, and the tools described in the prompt when the server refuses it),
    /// `native` (the parameter only) or `prompted` (the prompt only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_calling: Option<ToolCalling>,
    /// Tool bundle granted to the agent; none means no built-in tool unless granted below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub preset: Option<ToolPreset>,
    /// Per-tool grants on top of the preset: allow adds a tool, ask adds it behind an
    /// approval, deny removes it (MCP tools included, as `mcp__<server>__<tool>`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Grant>,
    /// Rules over a call's arguments, per tool (or `mcp__server__*`): `{"bash": [{"allow":
    /// "git status"}, {"deny": "rm -rf *"}], "file_write": [{"allow": "src/**"}]}`. Bash
    /// patterns are words (`*` = any further words); file-tool patterns are globs relative
    /// to the workspace; other tools take `*`. Deny beats ask beats allow; a call no rule
    /// matches gets the tool's grant.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, Vec<RuleEntry>>,
    /// Where the agent may work: its own `.agent-workspace` folder or the whole project.
    #[serde(default)]
    pub workspace: WorkspaceMode,
    /// Let bash reach the whole network (`network` then does not apply).
    #[serde(default)]
    pub bash_network: bool,
    /// Let bash reach only these hosts, through Paddock's proxy (`npm install` with the npm
    /// preset, say); asked about the rest.
    #[serde(default, skip_serializing_if = "NetworkSettings::is_empty")]
    pub network: NetworkSettings,
    /// Sessions in their own checkout: the branch they start from, a setup command and
    /// the untracked files copied in.
    #[serde(default, skip_serializing_if = "WorktreeSettings::is_empty")]
    pub worktree: WorktreeSettings,
    /// Run bash even where the OS sandbox is unavailable (the result says so).
    #[serde(default)]
    pub allow_unconfined_bash: bool,
    /// More folders or files bash may not see, besides the built-in list (SSH and cloud
    /// credentials, keyrings, Paddock's data): absolute, or `~/` for the home folder.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hidden_paths: Vec<String>,
    /// Folders or files bash may read although they are in a folder the wall hides (your
    /// home): absolute, or `~/` for the home folder. Read-only; credentials inside stay
    /// hidden. Toolchains (cargo, rustup, npm, pip, go...) and the folders on `PATH` are
    /// readable without this.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readable_paths: Vec<String>,
    /// More files other programs run on their own (`Taskfile.yml`, `.idea/`), besides
    /// Paddock's list (`.envrc`, editor task files, git hook managers' folders): a name or
    /// path ending matched at any depth, a trailing `/` for a folder's files. The agent may
    /// not change them unseen: bash finds them read-only and what it writes there waits for
    /// your approval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_run_files: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_turns: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub max_token_budget: Option<u64>,
    /// Agents the main agent may hand work to with `delegate_to_agent`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teammates: Vec<TeammateSettings>,
    /// MCP servers, in the de-facto `mcpServers` shape.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// Prices by model id (US dollars per million tokens), over Paddock's table: for a
    /// model it does not list (a hosted OpenAI-compatible service) or a negotiated rate.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pricing: BTreeMap<String, crate::Price>,
    /// Hooks: your own commands on the agent's events, in Claude Code's shape (Codex's and
    /// Paddock's snake_case event names read too): `{"PreToolUse": [{"matcher": "Bash",
    /// "hooks": [{"type": "command", "command": "./scripts/check.sh"}]}]}`. Each runs behind
    /// the same wall as bash with the event as JSON on its stdin; exit code 2 or a JSON
    /// decision blocks. A folder's hooks wait for your trust, each pinned to its command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "Record<string, unknown>")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub hooks: Option<serde_json::Value>,
}

impl Default for ProjectSettings {
    fn default() -> Self {
        Self {
            schema: None,
            version: SETTINGS_VERSION,
            provider: None,
            model: None,
            base_url: None,
            system_prompt: None,
            replace_system_prompt: false,
            context_window: None,
            compaction: None,
            max_output_tokens: None,
            images: None,
            tool_calling: None,
            preset: None,
            tools: BTreeMap::new(),
            rules: BTreeMap::new(),
            workspace: WorkspaceMode::default(),
            bash_network: false,
            network: NetworkSettings::default(),
            allow_unconfined_bash: false,
            worktree: WorktreeSettings::default(),
            hidden_paths: Vec::new(),
            readable_paths: Vec::new(),
            auto_run_files: Vec::new(),
            max_turns: None,
            max_token_budget: None,
            teammates: Vec::new(),
            mcp_servers: BTreeMap::new(),
            pricing: BTreeMap::new(),
            hooks: None,
        }
    }
}

/// How tools reach an openai-compatible server (the `toolCalling` setting).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS,
)]
#[serde(rename_all = "lowercase")]
pub enum ToolCalling {
    /// The `tools` parameter; described in the prompt once the server refuses it.
    #[default]
    Auto,
    /// The `tools` parameter only: a refusal ends the run.
    Native,
    /// Described in the system prompt only (Hermes `<tool_call>` format), read from the text.
    Prompted,
}

impl ToolCalling {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Native => "native",
            Self::Prompted => "prompted",
        }
    }
}

impl std::str::FromStr for ToolCalling {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "native" => Ok(Self::Native),
            "prompted" => Ok(Self::Prompted),
            _ => Err(format!(
                "unknown tool calling mode '{s}' (expected auto, native or prompted)"
            )),
        }
    }
}

/// One argument rule: exactly one of `allow`, `ask` or `deny`, whose value is the pattern.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum RuleEntry {
    Allow(String),
    Ask(String),
    Deny(String),
}

impl RuleEntry {
    pub fn grant(&self) -> Grant {
        match self {
            Self::Allow(_) => Grant::Allow,
            Self::Ask(_) => Grant::Ask,
            Self::Deny(_) => Grant::Deny,
        }
    }

    pub fn pattern(&self) -> &str {
        match self {
            Self::Allow(p) | Self::Ask(p) | Self::Deny(p) => p,
        }
    }

    pub fn new(grant: Grant, pattern: String) -> Self {
        match grant {
            Grant::Allow => Self::Allow(pattern),
            Grant::Ask => Self::Ask(pattern),
            Grant::Deny => Self::Deny(pattern),
        }
    }
}

/// Automatic compaction: on by default, at 80 % of the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompactionSettings {
    /// Compact by itself when a request would pass the threshold (a context overflow from
    /// the provider is still met with one compaction).
    #[serde(default = "yes")]
    pub auto: bool,
    /// Percent of the context window (10-95).
    #[serde(default = "default_threshold")]
    pub threshold_percent: u8,
}

fn yes() -> bool {
    true
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn default_threshold() -> u8 {
    80
}

/// A named agent for delegation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TeammateSettings {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub system_prompt: Option<String>,
    /// Model name; defaults to the project's model (same provider).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub preset: Option<ToolPreset>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tools: BTreeMap<String, Grant>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub max_turns: Option<u32>,
}

/// One MCP server: `command` (+ `args`, `env`) for stdio, or `url` (+ `headers`) for
/// streamable HTTP. Exactly one of `command` and `url`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment for the server process (not secrets you want in git: prefer
    /// variables already in your environment).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Kept in the file but not started.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// Per-call time limit for this server's tools, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout_secs: Option<u64>,
    /// The transport as other tools write it (`stdio`, `http`, `streamableHttp`, `sse`);
    /// optional here: `command` means stdio, `url` means streamable HTTP.
    #[serde(
        default,
        rename = "type",
        alias = "transportType",
        skip_serializing_if = "Option::is_none"
    )]
    #[ts(optional, rename = "type")]
    pub kind: Option<McpServerKind>,
    /// Tools of this server that run without asking (Cline's `autoApprove`): each is
    /// granted as `mcp__<server>__<tool>` unless `tools` says otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auto_approve: Vec<String>,
    /// Per-call time limit as Cline (seconds) and Claude Code (milliseconds) write it:
    /// below 10,000 it is read as seconds, from 10,000 as milliseconds. `timeoutSecs` wins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub timeout: Option<u64>,
    /// A file of `NAME=value` lines added to the environment (VS Code's `envFile`), relative
    /// to the project folder; `env` wins over it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub env_file: Option<String>,
}

/// An MCP transport as Claude Code, Cursor, VS Code and Cline name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub enum McpServerKind {
    #[serde(rename = "stdio")]
    Stdio,
    #[serde(rename = "http", alias = "streamableHttp", alias = "streamable-http")]
    Http,
    /// The older HTTP+SSE transport: Paddock speaks streamable HTTP to the same URL.
    #[serde(rename = "sse")]
    Sse,
}

/// Where a `timeout` in milliseconds (Claude Code) starts; below it, seconds (Cline).
pub const TIMEOUT_MS_FROM: u64 = 10_000;

/// Why an MCP server entry has no usable transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TransportError {
    #[error("`type` is stdio but the entry has a `url`, not a `command`")]
    StdioWithUrl,
    #[error("`type` is an HTTP transport but the entry has a `command`, not a `url`")]
    HttpWithCommand,
    #[error("set either `command` (stdio) or `url` (HTTP), not both")]
    Both,
    #[error("set `command` (stdio server) or `url` (streamable HTTP server)")]
    Neither,
}

/// How to reach an MCP server, once validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport<'a> {
    Stdio {
        command: &'a str,
        args: &'a [String],
        env: &'a BTreeMap<String, String>,
        cwd: Option<&'a str>,
    },
    Http {
        url: &'a str,
        headers: &'a BTreeMap<String, String>,
    },
}

impl McpServerConfig {
    /// The per-call time limit in seconds, from `timeoutSecs` or `timeout`.
    pub fn call_timeout_secs(&self) -> Option<u64> {
        self.timeout_secs.or(self.timeout.map(|t| {
            if t >= TIMEOUT_MS_FROM {
                t.div_ceil(1000)
            } else {
                t
            }
        }))
    }

    /// The transport, or why the entry is unusable.
    pub fn transport(&self) -> Result<McpTransport<'_>, TransportError> {
        match (self.kind, &self.command, &self.url) {
            (Some(McpServerKind::Stdio), None, Some(_)) => {
                return Err(TransportError::StdioWithUrl);
            }
            (Some(McpServerKind::Http | McpServerKind::Sse), Some(_), None) => {
                return Err(TransportError::HttpWithCommand);
            }
            _ => {}
        }
        match (&self.command, &self.url) {
            (Some(command), None) if !command.trim().is_empty() => Ok(McpTransport::Stdio {
                command,
                args: &self.args,
                env: &self.env,
                cwd: self.cwd.as_deref(),
            }),
            (None, Some(url)) if !url.trim().is_empty() => Ok(McpTransport::Http {
                url,
                headers: &self.headers,
            }),
            (Some(_), Some(_)) => Err(TransportError::Both),
            _ => Err(TransportError::Neither),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_full_file_round_trips() {
        let v = json!({
            "version": 1,
            "provider": "openai-compatible",
            "model": "qwen2.5-coder",
            "baseUrl": "http://localhost:11434/v1",
            "preset": "readwrite",
            "tools": {"bash": "ask", "file_write": "deny"},
            "workspace": "project",
            "bashNetwork": true,
            "allowUnconfinedBash": false,
            "teammates": [{"name": "reviewer", "preset": "readonly"}],
            "mcpServers": {
                "everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]},
                "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"X-Team": "a"}}
            }
        });
        let s: ProjectSettings = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(s.provider, Some(ProviderKind::OpenAiCompatible));
        assert_eq!(s.tools["bash"], Grant::Ask);
        assert_eq!(s.workspace, WorkspaceMode::Project);
        assert!(matches!(
            s.mcp_servers["everything"].transport(),
            Ok(McpTransport::Stdio { command: "npx", .. })
        ));
        assert!(matches!(
            s.mcp_servers["remote"].transport(),
            Ok(McpTransport::Http { .. })
        ));
        assert_eq!(serde_json::to_value(&s).unwrap(), v);
    }

    #[test]
    fn unknown_fields_are_refused_by_name() {
        let err =
            serde_json::from_value::<ProjectSettings>(json!({"version": 1, "presett": "full"}))
                .unwrap_err();
        assert!(err.to_string().contains("unknown field `presett`"), "{err}");
    }

    #[test]
    fn an_mcp_entry_needs_exactly_one_transport() {
        let both = McpServerConfig {
            command: Some("x".into()),
            url: Some("http://x".into()),
            ..McpServerConfig::default()
        };
        assert!(
            both.transport()
                .unwrap_err()
                .to_string()
                .contains("not both")
        );
        assert!(McpServerConfig::default().transport().is_err());
    }
}
