use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// What the model is told about a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON schema of the input object.
    #[ts(type = "unknown")]
    pub input_schema: Value,
}

/// A tool's permission state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum Grant {
    /// Runs without asking.
    Allow,
    /// Each call waits for the user's approval.
    Ask,
    /// Never offered to the model, never run.
    Deny,
}

/// Named bundles of built-in tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema, TS)]
#[serde(rename_all = "snake_case")]
pub enum ToolPreset {
    /// file_read, grep, glob, web_fetch, todo_write (the plan changes nothing but the
    /// session).
    Readonly,
    /// readonly + file_write, file_edit.
    Readwrite,
    /// readwrite + bash.
    Full,
}

impl ToolPreset {
    pub const ALL: [ToolPreset; 3] = [Self::Readonly, Self::Readwrite, Self::Full];

    /// The built-in tool names this preset grants.
    pub fn tools(self) -> &'static [&'static str] {
        const READONLY: &[&str] = &["file_read", "grep", "glob", "web_fetch", "todo_write"];
        const READWRITE: &[&str] = &[
            "file_read",
            "grep",
            "glob",
            "web_fetch",
            "todo_write",
            "file_write",
            "file_edit",
        ];
        const FULL: &[&str] = &[
            "file_read",
            "grep",
            "glob",
            "web_fetch",
            "todo_write",
            "file_write",
            "file_edit",
            "bash",
        ];
        match self {
            Self::Readonly => READONLY,
            Self::Readwrite => READWRITE,
            Self::Full => FULL,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Readonly => "readonly",
            Self::Readwrite => "readwrite",
            Self::Full => "full",
        }
    }
}

impl std::str::FromStr for ToolPreset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown preset '{s}' (expected readonly, readwrite or full)"))
    }
}

/// The user's answer to an approval request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalDecision {
    /// Run this one call.
    Once,
    /// Run this call and every later call of the same tool in this session.
    Session,
    /// Do not run it; the model gets an error result.
    Deny,
}

/// A tool's effective state and why, for the grants screen and `paddock doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ToolGrantInfo {
    pub name: String,
    pub grant: Grant,
    /// Plain words, e.g. "denied — not in preset readonly".
    pub reason: String,
    /// Added at run time (MCP): skips preset and allow list, obeys the deny list.
    pub runtime: bool,
    /// Whether the tool can change files or run programs (what a read-only grant excludes).
    #[serde(default)]
    pub mutates: bool,
}

/// What the grants and rules would do with one call, without running it ("Test a call",
/// `paddock rules explain`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CallExplanation {
    pub tool: String,
    /// Allow: runs; Ask: waits for the user; Deny: refused.
    pub decision: Grant,
    /// Which rule or grant decided, in plain words.
    pub why: String,
    /// Decided by an argument rule rather than the tool's grant.
    pub by_rule: bool,
    /// The rules "Always allow" would save for this call; empty when none could allow it.
    pub proposed_rules: Vec<String>,
    /// The hooks that would run before this call (titles): they may still allow, ask,
    /// deny or rewrite it when it runs.
    #[serde(default)]
    pub hooks: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_nest() {
        for t in ToolPreset::Readonly.tools() {
            assert!(ToolPreset::Readwrite.tools().contains(t));
        }
        for t in ToolPreset::Readwrite.tools() {
            assert!(ToolPreset::Full.tools().contains(t));
        }
        assert!(ToolPreset::Full.tools().contains(&"bash"));
        assert!(!ToolPreset::Readwrite.tools().contains(&"bash"));
        for p in ToolPreset::ALL {
            assert!(!p.tools().contains(&"delegate_to_agent"));
            assert_eq!(p.as_str().parse::<ToolPreset>().unwrap(), p);
        }
        assert!("admin".parse::<ToolPreset>().is_err());
    }
}
