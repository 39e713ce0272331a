//! Landing a session's work is a trust change when it carries files that folder trust
//! covers (issue 50, class 2): Paddock's folder settings, hooks and saved prompts, the hook
//! and settings folders of the other agents whose layouts Paddock runs, MCP configurations,
//! and files other programs run on their own. Such a landing is refused unless the user
//! says yes knowing the list, and once it lands the folder's trust is forgotten, so the next
//! run asks again whatever the trusted values were.

use std::path::Path;

use paddock_worktree::Worktree;

use crate::settings::SETTINGS_DIR;

/// Folders whose every file grants, runs or instructs: Paddock's own, and the hook and
/// settings layouts of the agents whose hooks Paddock runs.
const TRUSTED_FOLDERS: &[&str] = &[SETTINGS_DIR, ".claude", ".codex"];

/// One landed file that folder trust covers, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustFile {
    pub path: String,
    pub why: String,
}

/// Why folder trust covers `path` (relative to the project, `/`-separated), if it does.
/// `auto_run` is the folder's `autoRunFiles`; `root` the checkout, for git's own folders.
pub fn covered(root: &Path, path: &str, auto_run: &[String]) -> Option<String> {
    // At any depth: the project may be a folder below the repository's top.
    let parts: Vec<&str> = path.split('/').collect();
    let folders = &parts[..parts.len().saturating_sub(1)];
    if let Some(folder) = folders.iter().find(|p| TRUSTED_FOLDERS.contains(p)) {
        return Some(match *folder {
            SETTINGS_DIR => "Paddock's folder settings, hooks and saved prompts".into(),
            ".claude" => "Claude Code's settings, hooks and commands, which Paddock runs".into(),
            _ => "Codex's settings and hooks, which Paddock runs".into(),
        });
    }
    if crate::mcp_import::PROJECT_FILES
        .iter()
        .any(|f| path == *f || path.ends_with(&format!("/{f}")))
    {
        return Some("an MCP server configuration (programs it starts)".into());
    }
    paddock_sandbox::autorun::classify(root, Path::new(path), auto_run)
}

/// The files the worktree's branch lands that folder trust covers.
pub fn landed_trust_files(
    worktree: &Worktree,
    auto_run: &[String],
) -> Result<Vec<TrustFile>, paddock_worktree::WorktreeError> {
    let root = worktree.checkout();
    Ok(worktree
        .landed_files()?
        .into_iter()
        .filter_map(|path| covered(root, &path, auto_run).map(|why| TrustFile { path, why }))
        .collect())
}

/// The refusal's text: every file, and how to land them anyway.
pub fn refusal_text(worktree: &str, files: &[TrustFile]) -> String {
    let mut text = format!(
        "the worktree '{worktree}' changes {} file(s) that folder trust covers; nothing was \
         landed:",
        files.len()
    );
    for f in files {
        text.push_str(&format!("\n  {} ({})", f.path, f.why));
    }
    text.push_str(&format!(
        "\nread them (`paddock worktree diff {worktree} PATH`, or the worktree panel), then land \
         again accepting them (`--accept-trust-changes`, or \"Land with these changes\"); the \
         folder then asks for trust again before its next run"
    ));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_trusted_file_is_named_and_ordinary_files_are_not() {
        let root = Path::new("/nonexistent-checkout");
        for path in [
            ".paddock/settings.json",
            ".paddock/prompts/deploy.md",
            ".paddock/hooks/pre.sh",
            ".claude/settings.json",
            ".claude/hooks/guard.sh",
            ".codex/config.toml",
            ".mcp.json",
            ".vscode/mcp.json",
            ".envrc",
            ".vscode/tasks.json",
            "sub/.envrc",
            ".husky/pre-commit",
            "sub/project/.paddock/settings.json",
            "sub/.mcp.json",
        ] {
            assert!(covered(root, path, &[]).is_some(), "{path}");
        }
        for path in [
            "src/main.rs",
            "README.md",
            "paddock/settings.json",
            "x/.claude",
        ] {
            assert!(covered(root, path, &[]).is_none(), "{path}");
        }
        assert!(covered(root, "Makefile", &["Makefile".into()]).is_some());
    }
}
