//! Every settings change both shells make goes through `host::edit`: one transaction (a
//! broken file never overwritten, the user's change trusted, nothing else), and one answer
//! to "which settings are in effect".

use paddock_host::edit::{Edit, in_effect, info};
use paddock_host::settings;
use paddock_host::trust::TrustStore;
use paddock_protocol::{
    AppError, AppErrorCode, Grant, ProjectSettings, RuleEntry, ToolPreset, WorkspaceMode,
};

struct Folder {
    dir: tempfile::TempDir,
    root: std::path::PathBuf,
    trust: TrustStore,
}

fn folder(settings_json: Option<&str>) -> Folder {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(root.join(".paddock")).unwrap();
    if let Some(text) = settings_json {
        std::fs::write(root.join(".paddock/settings.json"), text).unwrap();
    }
    let trust = TrustStore::new(dir.path().join("config/trust.json"));
    Folder { dir, root, trust }
}

#[test]
fn a_broken_settings_file_is_reported_and_kept() {
    let f = folder(Some("{ nope"));
    let i = info(&f.trust, &f.root);
    assert!(i.settings.is_none());
    assert!(
        i.settings_error.as_deref().unwrap_or("").contains("line 1"),
        "{i:?}"
    );
    assert!(i.workspace_root.ends_with(".agent-workspace"));
    let edit = Edit::new(&f.trust, &f.root);
    let err = AppError::from(edit.save(ProjectSettings::default()).unwrap_err());
    assert_eq!(err.code, AppErrorCode::Settings);
    let err = AppError::from(edit.set_preset(Some(ToolPreset::Readonly)).unwrap_err());
    assert_eq!(err.code, AppErrorCode::Settings);
    let kept = std::fs::read_to_string(f.root.join(".paddock/settings.json")).unwrap();
    assert_eq!(kept, "{ nope");
}

#[test]
fn saved_settings_come_back_in_the_info() {
    let f = folder(None);
    let s = ProjectSettings {
        preset: Some(ToolPreset::Readwrite),
        workspace: WorkspaceMode::Project,
        ..ProjectSettings::default()
    };
    let i = Edit::new(&f.trust, &f.root).save(s.clone()).unwrap();
    assert_eq!(i.settings.as_ref(), Some(&s));
    // Saved by the user here: trusted, so the whole project is the workspace.
    assert!(!i.trust.needs_trust(), "{:?}", i.trust);
    assert_eq!(i.workspace_root, f.root.to_string_lossy());
    Edit::new(&f.trust, &f.root).set_preset(None).unwrap();
    assert_eq!(settings::load(&f.root).unwrap().preset, None);
}

#[test]
fn an_edit_trusts_only_what_it_changed() {
    let f = folder(Some(
        r#"{"version": 1, "workspace": "project", "bashNetwork": true}"#,
    ));
    let pending = |f: &Folder| -> Vec<String> {
        info(&f.trust, &f.root)
            .trust
            .pending
            .iter()
            .map(|p| p.key.clone())
            .collect()
    };
    assert_eq!(pending(&f), ["workspace", "bashNetwork"]);
    let edit = Edit::new(&f.trust, &f.root);
    let now = edit.set_grant("bash", Some(Grant::Ask)).unwrap();
    assert_eq!(pending(&f), ["workspace", "bashNetwork"]);
    assert!(!now.settings().bash_network, "the cloned field still waits");
    assert_eq!(now.settings().tools.get("bash"), Some(&Grant::Ask));
    edit.set_rules("bash", vec![RuleEntry::Allow("git status".into())])
        .unwrap();
    let bad = edit
        .set_rules("bash", vec![RuleEntry::Allow(String::new())])
        .unwrap_err();
    assert_eq!(AppError::from(bad).code, AppErrorCode::Invalid);
    assert_eq!(
        in_effect(&f.trust, &f.root).unwrap().settings().rules["bash"],
        [RuleEntry::Allow("git status".into())],
        "a refused change leaves the file as it was"
    );
    let _ = &f.dir;
}

/// "Always allow" saves the rules as the user's, and a model is chosen; empty names are
/// refused by name.
#[test]
fn always_allow_and_the_model_picker_save_the_users_words() {
    let f = folder(None);
    let edit = Edit::new(&f.trust, &f.root);
    let now = edit
        .allow(
            "bash",
            &["cargo test *".to_owned(), "cargo test *".to_owned()],
        )
        .unwrap();
    assert_eq!(
        now.settings().rules["bash"],
        [RuleEntry::Allow("cargo test *".into())]
    );
    let i = edit.choose_model(" qwen3 ").unwrap();
    assert_eq!(i.settings.unwrap().model.as_deref(), Some("qwen3"));
    for err in [
        edit.choose_model("  ").unwrap_err(),
        edit.set_grant(" ", None).unwrap_err(),
    ] {
        assert_eq!(AppError::from(err).code, AppErrorCode::Invalid);
    }
}

/// The settings in effect: trust applied, the same whoever asks.
#[test]
fn in_effect_leaves_out_what_waits_for_trust() {
    let f = folder(Some(
        r#"{"version": 1, "preset": "full", "rules": {"bash": [{"allow": "ls *"}, {"deny": "rm *"}]}}"#,
    ));
    let now = in_effect(&f.trust, &f.root).unwrap();
    assert_eq!(now.written().preset, Some(ToolPreset::Full));
    assert_eq!(now.settings().preset, None);
    assert_eq!(
        now.settings().rules["bash"],
        [RuleEntry::Deny("rm *".into())]
    );
    let keys: Vec<&str> = now.trust().pending.iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["preset", "rules.bash"]);
    Edit::new(&f.trust, &f.root).trust_folder().unwrap();
    assert_eq!(
        in_effect(&f.trust, &f.root).unwrap().settings().preset,
        Some(ToolPreset::Full)
    );
    Edit::new(&f.trust, &f.root).revoke_trust().unwrap();
    assert_eq!(
        in_effect(&f.trust, &f.root).unwrap().settings().preset,
        None
    );
}

/// The workspace the browser, the watcher, checkpoints and rewind use is the one in effect:
/// a cloned folder's `"workspace": "project"` waits for trust there as it does in a run
/// (before, they read the file as written and used the whole project folder).
#[test]
fn the_workspace_guard_follows_the_settings_in_effect() {
    let f = folder(Some(r#"{"version": 1, "workspace": "project"}"#));
    let guard = paddock_host::workspace::guard_for(&f.trust, &f.root);
    assert_eq!(guard.root(), f.root.join(".agent-workspace"));
    Edit::new(&f.trust, &f.root).trust_folder().unwrap();
    let guard = paddock_host::workspace::guard_for(&f.trust, &f.root);
    assert_eq!(guard.root(), f.root);
}

/// One resolved configuration: a run's options are applied once, over the settings in
/// effect; a second application is refused; a run that fails for want of a setting that
/// waits for trust says which.
#[test]
fn a_runs_options_are_applied_once_over_the_settings_in_effect() {
    use paddock_host::trust::TrustPolicy;
    use paddock_host::{HostError, Resolved, RunOptions};
    let f = folder(Some(
        r#"{"version": 1, "model": "m1", "baseUrl": "http://127.0.0.1:9/v1", "preset": "full"}"#,
    ));
    let options = RunOptions {
        model: Some("m2".into()),
        ..RunOptions::default()
    };
    let resolved =
        Resolved::for_run(&f.trust, &f.root, &options, TrustPolicy::SafeDefaults).unwrap();
    assert_eq!(resolved.settings().model.as_deref(), Some("m1"));
    assert_eq!(resolved.settings().preset, None, "waits for trust");
    let keys: Vec<&str> = resolved.pending().iter().map(|p| p.key.as_str()).collect();
    assert_eq!(keys, ["baseUrl", "preset"]);
    let run = resolved.with_options(&options).unwrap();
    assert_eq!(run.settings().model.as_deref(), Some("m2"));
    assert_eq!(run.project().settings().model.as_deref(), Some("m2"));
    let twice = run.clone().with_options(&options).unwrap_err();
    assert!(matches!(twice, HostError::Internal(_)), "{twice}");
    let said = run.not_applied(paddock_host::RequestError::NoModel.into());
    assert!(matches!(said, HostError::NotApplied { .. }), "{said}");
    let refused = Resolved::for_run(&f.trust, &f.root, &options, TrustPolicy::Refuse);
    assert!(matches!(refused, Err(HostError::Untrusted { .. })));
    let assumed = Resolved::for_run(&f.trust, &f.root, &options, TrustPolicy::Assume).unwrap();
    assert_eq!(assumed.settings().preset, Some(ToolPreset::Full));
    assert!(assumed.pending().is_empty());
}
