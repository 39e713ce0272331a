//! Instruction files deeper in the workspace (`sub/AGENTS.md`): the first time the agent
//! touches a file beneath one, its text is added to the tool's result, once per
//! conversation. The project root's own file is in the system prompt already.

use std::io::Read;
use std::path::Path;

use paddock_core::ToolContext;
use paddock_core::tool::TOLD_MARK;

use crate::ToolEnv;

/// Names looked for in each folder on the way to a touched file.
const NAMES: [&str; 2] = ["AGENTS.md", "CLAUDE.md"];
/// A nested file beyond this is cut.
pub const MAX_NESTED_BYTES: u64 = 16 * 1024;

/// The instructions to add for a call that touched `rel` (relative to the workspace root,
/// symlink-free as the path guard resolved it), or an empty string.
pub(crate) fn for_path(env: &ToolEnv, rel: &Path, ctx: &ToolContext) -> String {
    let guard = env.guard();
    let Ok(root) = guard.open_root() else {
        return String::new();
    };
    let mut out = String::new();
    let mut dir = std::path::PathBuf::new();
    let parents: Vec<_> = rel
        .parent()
        .map(|p| p.components().collect())
        .unwrap_or_default();
    for level in 0..=parents.len() {
        if level > 0 {
            dir.push(parents[level - 1]);
        }
        // The project root's file is in the system prompt.
        if env.project_root.as_deref() == Some(&root.real_path().join(&dir)) {
            continue;
        }
        for name in NAMES {
            let file = dir.join(name);
            let shown = file.display().to_string();
            // Opened beneath the root, no symlink followed.
            let Ok(handle) = root.open_rel_read(&file) else {
                continue;
            };
            if !ctx.told.first_time(&shown) {
                break;
            }
            let mut bytes = Vec::new();
            if handle
                .take(MAX_NESTED_BYTES)
                .read_to_end(&mut bytes)
                .is_err()
            {
                break;
            }
            let text = String::from_utf8_lossy(&bytes);
            out.push_str(&format!(
                "\n\n{TOLD_MARK}{shown}\">\nInstructions for files under {}/ (from {shown}):\n{}\n</instructions>",
                if dir.as_os_str().is_empty() { "." } else { dir.to_str().unwrap_or(".") },
                text.trim_end()
            ));
            break;
        }
    }
    out
}

/// [`for_path`] for the path a call named (resolved through the guard again).
pub(crate) fn for_input(env: &ToolEnv, input: &str, ctx: &ToolContext) -> String {
    match env.guard().open_root().and_then(|root| root.resolve(input)) {
        Ok(resolved) => for_path(env, &resolved.rel, ctx),
        Err(_) => String::new(),
    }
}
