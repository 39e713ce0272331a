//! A project folder as the UI sees it: its canonical path, settings (or why they are broken),
//! workspace root and sandbox status; settings saves go through the host's atomic save.

use std::path::{Path, PathBuf};

use paddock_host::{Project, settings};
use paddock_protocol::{AppErrorCode, ProjectInfo, ProjectSettings};

use crate::error::{AppResult, ToAppError, app_error, invalid};

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

/// The project's settings, or a `settings` error saying what is wrong with the file.
pub fn load_settings(root: &Path) -> AppResult<ProjectSettings> {
    settings::load(root).map_err(ToAppError::app_error)
}

/// Everything a project window shows about its project. A broken settings file is reported
/// in `settings_error` (and left alone); the rest uses defaults meanwhile.
pub fn info(root: &Path) -> ProjectInfo {
    let (loaded, settings_error) = match settings::load(root) {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let project = Project {
        root: root.to_path_buf(),
        settings: loaded.clone().unwrap_or_default(),
    };
    ProjectInfo {
        path: root.to_string_lossy().into_owned(),
        name: name_of(root),
        settings: loaded,
        settings_error,
        workspace_root: project.workspace_root().to_string_lossy().into_owned(),
        sandbox: project.sandbox_status(),
    }
}

/// Validates and saves atomically; refuses to replace a broken file.
pub fn save_settings(root: &Path, settings: &ProjectSettings) -> AppResult<ProjectInfo> {
    settings::save(root, settings).map_err(ToAppError::app_error)?;
    tracing::info!(project = %root.display(), "settings saved");
    Ok(info(root))
}

/// Loads, changes and saves the settings in one step.
pub fn update_settings(
    root: &Path,
    change: impl FnOnce(&mut ProjectSettings),
) -> AppResult<ProjectSettings> {
    let mut s = load_settings(root)?;
    change(&mut s);
    settings::save(root, &s).map_err(ToAppError::app_error)?;
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{ToolPreset, WorkspaceMode};

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

    #[test]
    fn a_broken_settings_file_is_reported_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".paddock")).unwrap();
        std::fs::write(root.join(".paddock/settings.json"), "{ nope").unwrap();
        let i = info(&root);
        assert!(i.settings.is_none());
        assert!(
            i.settings_error.as_deref().unwrap_or("").contains("line 1"),
            "{i:?}"
        );
        assert!(i.workspace_root.ends_with(".agent-workspace"));
        let err = save_settings(&root, &ProjectSettings::default()).unwrap_err();
        assert_eq!(err.code, AppErrorCode::Settings);
        let kept = std::fs::read_to_string(root.join(".paddock/settings.json")).unwrap();
        assert_eq!(kept, "{ nope");
    }

    #[test]
    fn saved_settings_come_back_in_the_info() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let s = ProjectSettings {
            preset: Some(ToolPreset::Readwrite),
            workspace: WorkspaceMode::Project,
            ..ProjectSettings::default()
        };
        let i = save_settings(&root, &s).unwrap();
        assert_eq!(i.settings.as_ref(), Some(&s));
        assert_eq!(i.workspace_root, root.to_string_lossy());
        assert_eq!(i.sandbox.workspace_root, root.to_string_lossy());
        let updated = update_settings(&root, |s| s.preset = None).unwrap();
        assert_eq!(updated.preset, None);
        assert_eq!(load_settings(&root).unwrap().preset, None);
    }
}
