//! Paddock's built-in tools (files, search, the web, bash, delegation, the plan), one per file, each
//! confined by the sandbox: file tools through the path guard, bash through the OS wall,
//! web_fetch (and bash's allow-listed network) through the network fence.

pub mod bash;
mod bash_output;
mod change;
pub mod delegate;
mod env;
pub mod file_edit;
pub mod file_read;
pub mod file_write;
pub mod glob;
pub mod grep;
mod nested;
pub mod todo_write;
mod walk;
pub mod web_fetch;

pub use bash::BashTool;
pub use delegate::{DelegateTool, Team, TeamMember};
pub use env::{ImageSupport, ToolEnv};
pub use file_edit::FileEditTool;
pub use file_read::FileReadTool;
pub use file_write::FileWriteTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use paddock_wall::NetworkFence;
pub use todo_write::TodoWriteTool;
pub use walk::{SKIPPED_DIRS, workspace_files};
pub use web_fetch::WebFetchTool;

use std::sync::Arc;

use paddock_core::tool::{RegistryError, typed};
use paddock_core::{ToolError, ToolRegistry};
use paddock_guard::PathError;
use serde_json::Value;

/// Registers file_read, file_write, file_edit, grep, glob, web_fetch, bash and todo_write, working in
/// `env`. They stay invisible to an agent until a preset or allow list grants them.
pub fn register_builtin_tools(
    registry: &mut ToolRegistry,
    env: &Arc<ToolEnv>,
) -> Result<(), RegistryError> {
    registry.register(typed(FileReadTool::new(env.clone())))?;
    registry.register(typed(FileWriteTool::new(env.clone())))?;
    registry.register(typed(FileEditTool::new(env.clone())))?;
    registry.register(typed(GrepTool::new(env.clone())))?;
    registry.register(typed(GlobTool::new(env.clone())))?;
    registry.register(typed(WebFetchTool::new(env.clone())))?;
    registry.register(typed(BashTool::new(env.clone())))?;
    registry.register(typed(TodoWriteTool))?;
    Ok(())
}

/// A registry built by `register`, plus `delegate_to_agent` for `team` when there is one
/// (its teammates get the same registry).
pub fn registry_with_team(
    team: Option<Team>,
    register: impl FnOnce(&mut ToolRegistry) -> Result<(), RegistryError>,
) -> Result<Arc<ToolRegistry>, RegistryError> {
    let mut result = Ok(());
    let registry = Arc::new_cyclic(|weak| {
        let mut registry = ToolRegistry::new();
        result = register(&mut registry).and_then(|()| match team {
            Some(team) => registry.register(typed(DelegateTool::new(Arc::new(team), weak.clone()))),
            None => Ok(()),
        });
        registry
    });
    result.map(|()| registry)
}

/// The summary of a search call: the pattern, and where when a path is given.
fn pattern_summary(input: &Value) -> String {
    use paddock_core::tool::{SUMMARY_CHARS, one_line, summarize_input};
    let field = |k: &str| input.get(k).and_then(Value::as_str);
    match (field("pattern"), field("path")) {
        (Some(p), Some(dir)) => one_line(&format!("{p:?} in {dir}"), SUMMARY_CHARS),
        (Some(p), None) => one_line(&format!("{p:?}"), SUMMARY_CHARS),
        _ => summarize_input(input),
    }
}

/// Runs blocking file-system work off the async threads; a panic becomes a failure.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    paddock_core::blocking(work, |e| {
        ToolError::Failed(format!("the tool stopped unexpectedly: {e}"))
    })
    .await
}

fn path_error(e: PathError) -> ToolError {
    ToolError::Failed(e.to_string())
}

/// An optional folder as a search tool's schema promises it: unset, empty or blank means
/// the whole workspace (small models send `"path": ""` for "no folder in particular").
fn folder_or_root(path: Option<&str>) -> &str {
    path.filter(|p| !p.trim().is_empty()).unwrap_or(".")
}

fn count_lines(text: &str) -> usize {
    text.lines().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ToolPreset;

    #[test]
    fn registers_every_preset_tool_with_a_description() {
        let mut registry = ToolRegistry::new();
        register_builtin_tools(&mut registry, &Arc::new(ToolEnv::default())).unwrap();
        for name in ToolPreset::Full.tools() {
            let spec = registry.spec(name).unwrap();
            assert!(spec.description.len() > 40, "{name}: {}", spec.description);
            assert_eq!(spec.input_schema["type"], "object", "{name}");
        }
        assert_eq!(registry.len(), ToolPreset::Full.tools().len());
    }

    #[test]
    fn summaries_pick_the_telling_field() {
        use serde_json::json;
        let mut registry = ToolRegistry::new();
        register_builtin_tools(&mut registry, &Arc::new(ToolEnv::default())).unwrap();
        let summary = |tool: &str, input: Value| registry.get(tool).unwrap().summary(&input);
        assert_eq!(
            summary("file_write", json!({"path": "a.txt", "content": "x"})),
            "a.txt"
        );
        assert_eq!(summary("bash", json!({"command": "ls\n  -la"})), "ls -la");
        assert_eq!(
            summary("grep", json!({"pattern": "TODO", "path": "src"})),
            "\"TODO\" in src"
        );
        assert_eq!(summary("glob", json!({"pattern": "*.rs"})), "\"*.rs\"");
        assert_eq!(
            summary(
                "web_fetch",
                json!({"url": "https://docs.rs/x", "method": "HEAD"})
            ),
            "HEAD https://docs.rs/x"
        );
        let read_only: Vec<&str> = registry
            .iter()
            .filter(|(_, t)| !t.mutates())
            .map(|(n, _)| n)
            .collect();
        assert_eq!(
            read_only,
            ["file_read", "glob", "grep", "todo_write", "web_fetch"]
        );
        assert_eq!(
            summary(
                "todo_write",
                json!({"todos": [
                    {"content": "Read", "status": "completed"},
                    {"content": "Fix the bug", "status": "in_progress"},
                    {"content": "Test", "status": "pending"}
                ]})
            ),
            "1 of 3 done; now: Fix the bug"
        );
    }
}
