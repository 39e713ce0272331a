//! A project folder as the page names it: the folder behind a path the user typed, and its
//! name. What the project holds and every change to its settings are the host's (`edit`).

use std::path::{Path, PathBuf};

use paddock_protocol::AppErrorCode;

use crate::error::{AppResult, app_error, invalid};

/// The folder behind a path the user typed or the UI passed back: `~/` expanded, absolute,
/// symlinks resolved, and a directory.
pub fn canonical(path: &str) -> AppResult<PathBuf> {
    let trimmed = path.trim();
    if trimmed.is_empty() {
        return Err(invalid("give the project folder's path"));
    }
    let expanded = match trimmed
        .strip_prefix("~/")
        .or((trimmed == "~").then_some(""))
    {
        Some(rest) => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(rest),
            None => return Err(invalid("cannot expand '~': HOME is not set")),
        },
        None => PathBuf::from(trimmed),
    };
    if !expanded.is_absolute() {
        return Err(invalid(format!(
            "'{trimmed}' is not a full path; give the folder's absolute path (e.g. /home/me/project)"
        )));
    }
    let root = std::fs::canonicalize(&expanded).map_err(|e| {
        let code = if e.kind() == std::io::ErrorKind::NotFound {
            AppErrorCode::NotFound
        } else {
            AppErrorCode::Io
        };
        app_error(code, format!("cannot open {}: {e}", expanded.display()))
    })?;
    if !root.is_dir() {
        return Err(invalid(format!("{} is not a folder", root.display())));
    }
    Ok(root)
}

pub fn name_of(root: &Path) -> String {
    root.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| root.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_must_be_absolute_existing_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir.path().to_string_lossy()).unwrap();
        assert_eq!(root, dir.path().canonicalize().unwrap());
        assert_eq!(
            canonical("relative/dir").unwrap_err().code,
            AppErrorCode::Invalid
        );
        assert_eq!(canonical("  ").unwrap_err().code, AppErrorCode::Invalid);
        let missing = dir.path().join("nope");
        assert_eq!(
            canonical(&missing.to_string_lossy()).unwrap_err().code,
            AppErrorCode::NotFound
        );
        let file = dir.path().join("f.txt");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(
            canonical(&file.to_string_lossy()).unwrap_err().code,
            AppErrorCode::Invalid
        );
    }
}
