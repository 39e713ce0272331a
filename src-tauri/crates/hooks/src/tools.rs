//! Tool names as hooks name them: Paddock's own (`bash`, `file_write`), Claude Code's for
//! the same tools (`Bash`, `Write`), MCP tools (`mcp__server__tool`, the same in both), and
//! the tools of Claude Code or Codex that Paddock does not have (a matcher may list them;
//! they match nothing here).
//!
//! Claude Code's names as its hooks reference lists them for matchers (read 2026-12-06,
//! <https://docs.anthropic.com/de/docs/claude-code/hooks>); Paddock's from
//! `src-tauri/crates/tools/src/*.rs` (`const NAME`).

/// Paddock's built-in tools.
pub const PADDOCK_TOOLS: [&str; 9] = [
    "bash",
    "file_read",
    "file_write",
    "file_edit",
    "grep",
    "glob",
    "web_fetch",
    "todo_write",
    "delegate_to_agent",
];

/// Claude Code's name for a tool Paddock has, and Paddock's name for it.
const ALIASES: [(&str, &str); 11] = [
    ("Bash", "bash"),
    ("Read", "file_read"),
    ("Write", "file_write"),
    ("Edit", "file_edit"),
    ("MultiEdit", "file_edit"),
    ("Grep", "grep"),
    ("Glob", "glob"),
    ("WebFetch", "web_fetch"),
    ("TodoWrite", "todo_write"),
    ("Task", "delegate_to_agent"),
    ("Agent", "delegate_to_agent"),
];

/// Tools of Claude Code or Codex that Paddock does not have.
const ABSENT: [&str; 12] = [
    "NotebookEdit",
    "NotebookRead",
    "WebSearch",
    "LS",
    "BashOutput",
    "KillShell",
    "KillBash",
    "ExitPlanMode",
    "SlashCommand",
    "Skill",
    "AskUserQuestion",
    "apply_patch",
];

/// Prefix of every MCP tool's name.
const MCP_PREFIX: &str = "mcp__";

/// A tool name as a hook wrote it, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ToolName {
    /// A tool Paddock has, by Paddock's name (a built-in, or an MCP tool's full name).
    Paddock(String),
    /// A tool of Claude Code or Codex that Paddock does not have.
    Absent,
}

/// Reads one tool name: Paddock's, Claude Code's alias, `mcp__server__tool`, or a tool
/// Paddock lacks. Anything else is an error saying what was expected.
pub(crate) fn read(name: &str) -> Result<ToolName, String> {
    if PADDOCK_TOOLS.contains(&name) {
        return Ok(ToolName::Paddock(name.to_owned()));
    }
    if let Some(tool) = paddock_name(name) {
        return Ok(ToolName::Paddock(tool.to_owned()));
    }
    if ABSENT.contains(&name) {
        return Ok(ToolName::Absent);
    }
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        return match rest.split_once("__") {
            Some((server, tool)) if !server.is_empty() && !tool.is_empty() => {
                Ok(ToolName::Paddock(name.to_owned()))
            }
            _ => Err(format!(
                "`{name}` names no tool: an MCP tool is `mcp__<server>__<tool>` (a whole server is the pattern `mcp__<server>__.*`)"
            )),
        };
    }
    Err(format!(
        "unknown tool `{name}` (Paddock's tools: {}; Claude Code's names for them are read too)",
        PADDOCK_TOOLS.join(", ")
    ))
}

/// Paddock's name for a tool Claude Code names `name` (`Write` -> `file_write`).
pub fn paddock_name(name: &str) -> Option<&'static str> {
    ALIASES
        .iter()
        .find(|(alias, _)| *alias == name)
        .map(|(_, tool)| *tool)
}

/// Every name a hook may use for the Paddock tool `tool`: the name itself, then Claude
/// Code's names for it (`file_edit`, `Edit`, `MultiEdit`).
pub(crate) fn names_of(tool: &str) -> impl Iterator<Item = &str> {
    std::iter::once(tool).chain(
        ALIASES
            .iter()
            .filter(move |(_, paddock)| *paddock == tool)
            .map(|(alias, _)| *alias),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read() {
        assert_eq!(read("bash"), Ok(ToolName::Paddock("bash".into())));
        assert_eq!(read("Write"), Ok(ToolName::Paddock("file_write".into())));
        assert_eq!(
            read("Task"),
            Ok(ToolName::Paddock("delegate_to_agent".into()))
        );
        assert_eq!(read("NotebookEdit"), Ok(ToolName::Absent));
        assert_eq!(
            read("mcp__gh__issues"),
            Ok(ToolName::Paddock("mcp__gh__issues".into()))
        );
        assert!(read("mcp__gh").unwrap_err().contains("names no tool"));
        assert!(read("bsh").unwrap_err().contains("unknown tool `bsh`"));
        assert!(read("write").is_err(), "names are case-sensitive");
    }

    #[test]
    fn names_of_a_tool_include_claudes() {
        let names: Vec<&str> = names_of("file_edit").collect();
        assert_eq!(names, ["file_edit", "Edit", "MultiEdit"]);
        let names: Vec<&str> = names_of("mcp__a__b").collect();
        assert_eq!(names, ["mcp__a__b"]);
    }
}
