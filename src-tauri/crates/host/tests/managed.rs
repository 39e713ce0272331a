//! Issue 53: the app's edit commands refuse what the machine's managed policy forbids, and
//! leave the file as it was. Its own test binary: the policy folder is named by an
//! environment variable, which would reach every other test of a shared binary.
// Setting that variable is `unsafe` (other threads may read the environment): this binary
// has one test, which sets it before anything else runs.
#![allow(unsafe_code)]

use paddock_host::edit::Edit;
use paddock_host::settings;
use paddock_host::trust::TrustStore;
use paddock_protocol::{AppError, AppErrorCode, Grant, NetworkSettings, ToolPreset};

#[test]
fn edits_past_the_policy_are_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("policy");
    std::fs::create_dir_all(&policy).unwrap();
    std::fs::write(
        policy.join("managed-settings.json"),
        r#"{"version": 1, "maxPreset": "readwrite", "forbidBashNetwork": true,
            "network": {"allow": ["pkgs.example.com"], "allowAdditions": false}}"#,
    )
    .unwrap();
    // SAFETY: set before any thread of this binary reads the environment.
    unsafe { std::env::set_var(paddock_host::managed::MANAGED_DIR_ENV, &policy) };
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(root.join(".paddock")).unwrap();
    let trust = TrustStore::new(dir.path().join("config/trust.json"));
    let edit = Edit::new(&trust, &root);
    edit.set_preset(Some(ToolPreset::Readwrite)).unwrap();
    let before = std::fs::read_to_string(settings::settings_path(&root)).unwrap();

    let refusals = [
        edit.set_preset(Some(ToolPreset::Full)).unwrap_err(),
        edit.set_grant("bash", Some(Grant::Allow)).unwrap_err(),
        edit.allow_host("exfil.example").unwrap_err(),
        edit.set_network(NetworkSettings {
            allow: vec!["exfil.example".into()],
            ..NetworkSettings::default()
        })
        .unwrap_err(),
    ];
    for e in refusals {
        let e = AppError::from(e);
        assert_eq!(e.code, AppErrorCode::Invalid, "{}", e.message);
        assert!(e.message.contains("managed policy"), "{}", e.message);
        assert!(e.message.contains("managed-settings.json"), "{}", e.message);
    }
    let after = std::fs::read_to_string(settings::settings_path(&root)).unwrap();
    assert_eq!(before, after, "a refused edit writes nothing");

    // What applies shows the policy: the fixed network list, bash asked for.
    edit.set_grant("bash", Some(Grant::Ask)).unwrap();
    let now = paddock_host::edit::in_effect(&trust, &root).unwrap();
    assert_eq!(now.settings().network.allow, vec!["pkgs.example.com"]);
    assert!(!now.settings().bash_network);

    // The app's project info says what is locked, and by which file.
    let info = paddock_host::edit::info(&trust, &root);
    assert_eq!(info.managed.max_preset, Some(ToolPreset::Readwrite));
    assert!(info.managed.forbid_bash_network && info.managed.network_fixed);
    assert!(info.managed.files[0].ends_with("managed-settings.json"));
    assert_eq!(info.managed.error, None);
}
