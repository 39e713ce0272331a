//! A project folder as the UI sees it: its canonical path, settings (or why they are broken),
//! workspace root and sandbox status; settings saves go through the host's atomic save.

use std::path::{Path, PathBuf};

use paddock_host::settings::FieldError;
use paddock_host::trust::{TrustPolicy, TrustStore};
use paddock_host::{Project, RunOptions, RunService, settings};
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

/// The settings as the app may use them: what the user has not trusted is left out.
pub fn effective_settings(service: &RunService, root: &Path) -> AppResult<ProjectSettings> {
    service
        .settings_for_run(root, &RunOptions::default(), TrustPolicy::SafeDefaults)
        .map_err(ToAppError::app_error)
}

/// Everything a project window shows about its project: the settings as written (for the
/// settings screen), what waits for trust, and the workspace and sandbox as they apply. A
/// broken settings file is reported in `settings_error` (and left alone); the rest uses
/// defaults meanwhile.
pub fn info(trust: &TrustStore, root: &Path) -> ProjectInfo {
    let (loaded, settings_error) = match settings::load(root) {
        Ok(s) => (Some(s), None),
        Err(e) => (None, Some(e.to_string())),
    };
    let written = loaded.clone().unwrap_or_default();
    let assessment = trust.assess(root, &written);
    let project = Project {
        root: root.to_path_buf(),
        settings: assessment.apply(&written),
    };
    ProjectInfo {
        path: root.to_string_lossy().into_owned(),
        name: name_of(root),
        settings: loaded,
        settings_error,
        workspace_root: project.workspace_root().to_string_lossy().into_owned(),
        sandbox: project.sandbox_status(),
        trust: assessment.report,
    }
}

/// Validates and saves atomically; refuses to replace a broken file. What the user changed
/// here is theirs: those fields are trusted; the rest keep their trust.
pub fn save_settings(
    trust: &TrustStore,
    root: &Path,
    settings: &ProjectSettings,
) -> AppResult<ProjectInfo> {
    let before = load_settings(root)?;
    settings::save(root, settings).map_err(ToAppError::app_error)?;
    trust
        .trust_changes(root, &before, settings)
        .map_err(ToAppError::app_error)?;
    tracing::info!(project = %root.display(), "settings saved");
    Ok(info(trust, root))
}

/// Loads, changes and saves the settings in one step (the user's change: trusted).
pub fn update_settings(
    trust: &TrustStore,
    root: &Path,
    change: impl FnOnce(&mut ProjectSettings),
) -> AppResult<()> {
    let before = load_settings(root)?;
    let mut s = before.clone();
    change(&mut s);
    settings::save(root, &s).map_err(ToAppError::app_error)?;
    trust
        .trust_changes(root, &before, &s)
        .map_err(ToAppError::app_error)
}

/// As [`update_settings`], for a change that can be refused (the file is left as it was).
pub fn try_update_settings(
    trust: &TrustStore,
    root: &Path,
    change: impl FnOnce(&mut ProjectSettings) -> Result<(), FieldError>,
) -> AppResult<()> {
    let before = load_settings(root)?;
    let mut s = before.clone();
    change(&mut s).map_err(|e| invalid(e.to_string()))?;
    settings::save(root, &s).map_err(ToAppError::app_error)?;
    trust
        .trust_changes(root, &before, &s)
        .map_err(ToAppError::app_error)
}

/// The model for the project's next prompts (the composer's picker); the user's change.
pub fn choose_model(trust: &TrustStore, root: &Path, model: &str) -> AppResult<ProjectInfo> {
    let model = model.trim();
    if model.is_empty() {
        return Err(invalid("no model given"));
    }
    update_settings(trust, root, |s| s.model = Some(model.to_owned()))?;
    tracing::info!(project = %root.display(), model, "model chosen");
    Ok(info(trust, root))
}

#[tauri::command]
pub async fn set_model(
    state: tauri::State<'_, crate::state::Desktop>,
    project: String,
    model: String,
) -> Result<ProjectInfo, paddock_protocol::AppError> {
    choose_model(state.trust(), &canonical(&project)?, &model)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{ToolPreset, WorkspaceMode};

    fn trust_in(dir: &tempfile::TempDir) -> TrustStore {
        TrustStore::new(dir.path().join("config/trust.json"))
    }

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
        let trust = trust_in(&dir);
        let i = info(&trust, &root);
        assert!(i.settings.is_none());
        assert!(
            i.settings_error.as_deref().unwrap_or("").contains("line 1"),
            "{i:?}"
        );
        assert!(i.workspace_root.ends_with(".agent-workspace"));
        let err = save_settings(&trust, &root, &ProjectSettings::default()).unwrap_err();
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
        let trust = trust_in(&dir);
        let i = save_settings(&trust, &root, &s).unwrap();
        assert_eq!(i.settings.as_ref(), Some(&s));
        // Saved by the user here: trusted, so the whole project is the workspace.
        assert!(!i.trust.needs_trust(), "{:?}", i.trust);
        assert_eq!(i.workspace_root, root.to_string_lossy());
        assert_eq!(i.sandbox.workspace_root, root.to_string_lossy());
        update_settings(&trust, &root, |s| s.preset = None).unwrap();
        assert_eq!(load_settings(&root).unwrap().preset, None);
    }

    #[test]
    fn an_edit_in_the_app_trusts_only_what_it_changed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let cloned = r#"{"version": 1, "workspace": "project", "bashNetwork": true}"#;
        std::fs::create_dir_all(root.join(".paddock")).unwrap();
        std::fs::write(root.join(".paddock/settings.json"), cloned).unwrap();
        let trust = trust_in(&dir);
        let i = info(&trust, &root);
        assert_eq!(i.trust.pending.len(), 2);
        assert!(
            i.workspace_root.ends_with(".agent-workspace"),
            "not applied"
        );
        update_settings(&trust, &root, |s| s.preset = Some(ToolPreset::Readonly)).unwrap();
        let i = info(&trust, &root);
        let pending: Vec<&str> = i.trust.pending.iter().map(|p| p.key.as_str()).collect();
        assert_eq!(pending, ["workspace", "bashNetwork"]);
        assert_eq!(i.trust.trusted[0].key, "preset");
        let effective = trust.assess(&root, &load_settings(&root).unwrap());
        assert!(!effective.apply(&load_settings(&root).unwrap()).bash_network);
    }
}
