//! The built-in system prompt (versioned here, in `system.md`): who the agent is, where it
//! works, how grants and approvals behave, how to use each granted tool. The project's
//! `systemPrompt` is appended, or replaces it when `replaceSystemPrompt` says so; the
//! project's instructions (AGENTS.md) follow.

use paddock_protocol::WorkspaceMode;

/// Bumped whenever `system.md` changes meaning, so sessions can tell which one they ran with.
pub const SYSTEM_PROMPT_VERSION: u32 = 2;

const TEMPLATE: &str = include_str!("system.md");

/// One line per built-in tool on using it well; a granted tool not listed (MCP) is
/// described by its own schema.
const TOOL_HINTS: [(&str, &str); 8] = [
    (
        "file_read",
        "file_read: read a file before changing it; page long files with offset and limit.",
    ),
    (
        "file_write",
        "file_write: create a file or replace it whole; prefer file_edit for changes to part of a file.",
    ),
    (
        "file_edit",
        "file_edit: replace an exact, unique piece of text; copy it from what you read, whitespace included.",
    ),
    (
        "grep",
        "grep: find where something is used or defined before reading whole files.",
    ),
    ("glob", "glob: find files by name or path pattern."),
    (
        "bash",
        "bash: run commands (build, test, git) in the workspace; no network unless the project grants it; long-running servers are stopped when the call ends.",
    ),
    (
        "todo_write",
        "todo_write: for work of three or more steps, keep the plan the user watches; not for a single step or a question.",
    ),
    (
        "delegate_to_agent",
        "delegate_to_agent: hand a self-contained task to a teammate and use its answer.",
    ),
];

/// What the prompt says about the place and the grants.
pub struct PromptFacts<'a> {
    pub agent: &'a str,
    /// The teammate's role line, for delegated agents.
    pub role: Option<&'a str>,
    pub workspace: &'a str,
    pub mode: WorkspaceMode,
    /// Names of the tools the agent may use (granted, asking or not).
    pub tools: &'a [String],
    /// `YYYY-MM-DD`.
    pub date: &'a str,
}

/// The built-in prompt for these facts.
pub fn built_in(facts: &PromptFacts<'_>) -> String {
    let mode = match facts.mode {
        WorkspaceMode::AgentWorkspace => {
            "the agent's own folder inside the project; the rest of the project is not visible to you"
        }
        WorkspaceMode::Project => "the whole project folder",
    };
    let shell = if facts.tools.iter().any(|t| t == "bash") {
        "- Commands run with bash in the workspace, in a sandbox: only the workspace and a private temporary folder are writable, credentials and other projects are hidden.\n"
    } else {
        ""
    };
    let mut tools = String::new();
    for (name, hint) in TOOL_HINTS {
        if facts.tools.iter().any(|t| t == name) {
            tools.push_str("- ");
            tools.push_str(hint);
            tools.push('\n');
        }
    }
    if facts.tools.is_empty() {
        tools.push_str(
            "- No tools are granted in this project: answer from what the user gives you.\n",
        );
    }
    let mut text = TEMPLATE
        .replace("{agent}", facts.agent)
        .replace("{workspace}", facts.workspace)
        .replace("{mode}", mode)
        .replace("{platform}", std::env::consts::OS)
        .replace("{date}", facts.date)
        .replace("{shell}\n", shell)
        .replace("{tools}\n", &tools);
    if let Some(role) = facts.role {
        text.push_str(&format!("\nYour role in this team: {role}\n"));
    }
    text
}

/// The system prompt a run sends: the built-in one with the project's own text appended
/// (or instead of it, when the settings say so), then the project's instructions.
pub fn system_prompt(
    built_in: String,
    project_text: Option<&str>,
    replace: bool,
    instructions: &str,
) -> String {
    let mut text = match (project_text.filter(|t| !t.trim().is_empty()), replace) {
        (Some(own), true) => own.to_owned(),
        (Some(own), false) => format!("{built_in}\n{own}\n"),
        (None, _) => built_in,
    };
    if !instructions.is_empty() {
        text.push('\n');
        text.push_str(instructions);
    }
    text
}

/// Today as `YYYY-MM-DD` (UTC).
pub fn today() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .chars()
        .take(10)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(tools: &'a [String]) -> PromptFacts<'a> {
        PromptFacts {
            agent: "main",
            role: None,
            workspace: "/p/.agent-workspace",
            mode: WorkspaceMode::AgentWorkspace,
            tools,
            date: "2026-12-03",
        }
    }

    #[test]
    fn says_where_it_is_and_only_the_granted_tools() {
        let tools = vec!["file_read".to_owned(), "bash".to_owned()];
        let text = built_in(&facts(&tools));
        assert!(text.contains("/p/.agent-workspace"));
        assert!(text.contains("2026-12-03"));
        assert!(text.contains(std::env::consts::OS));
        assert!(text.contains("- file_read:"));
        assert!(text.contains("- bash:"));
        assert!(text.contains("in a sandbox"));
        assert!(!text.contains("- file_edit:"));
        assert!(!text.contains('{'), "every placeholder filled: {text}");
        let none = built_in(&facts(&[]));
        assert!(none.contains("No tools are granted"));
        assert!(!none.contains("in a sandbox"));
    }

    #[test]
    fn the_project_text_is_appended_or_replaces_and_instructions_follow() {
        let base = || "BUILT-IN\n".to_owned();
        let appended = system_prompt(base(), Some("OWN"), false, "AGENTS");
        assert!(appended.find("BUILT-IN") < appended.find("OWN"));
        assert!(appended.find("OWN") < appended.find("AGENTS"));
        let replaced = system_prompt(base(), Some("OWN"), true, "");
        assert_eq!(replaced, "OWN");
        assert_eq!(system_prompt(base(), Some("  "), true, ""), "BUILT-IN\n");
    }
}
