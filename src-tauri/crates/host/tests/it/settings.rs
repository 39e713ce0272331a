//! Project settings: defaults, clear errors, never overwriting a broken file, the schema.

use std::path::Path;

use paddock_host::settings::{self, SettingsError};
use paddock_protocol::{Grant, ProjectSettings, ProviderKind, ToolPreset};

fn project() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(project: &Path, text: &str) {
    let path = settings::settings_path(project);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_missing_file_gives_defaults() {
    let p = project();
    let s = settings::load(p.path()).unwrap();
    assert_eq!(s, ProjectSettings::default());
    assert!(s.preset.is_none(), "default deny: no preset");
}

#[test]
fn syntax_errors_name_the_line_and_column() {
    let p = project();
    write(
        p.path(),
        "{\n  \"version\": 1,\n  \"model\": \"x\"\n  \"preset\": \"full\"\n}\n",
    );
    let err = settings::load(p.path()).unwrap_err();
    assert!(
        matches!(err, SettingsError::Syntax { line: 4, .. }),
        "{err}"
    );
    assert!(
        err.to_string().contains("settings.json line 4, column 3"),
        "{err}"
    );
}

#[test]
fn bad_fields_are_named() {
    let p = project();
    write(
        p.path(),
        r#"{"version": 1, "tools": {"bash": "sometimes"}}"#,
    );
    let err = settings::load(p.path()).unwrap_err().to_string();
    assert!(err.contains("`tools.bash`"), "{err}");
    assert!(err.contains("unknown variant `sometimes`"), "{err}");

    write(p.path(), r#"{"version": 1, "apiKey": "sk-123"}"#);
    let err = settings::load(p.path()).unwrap_err().to_string();
    assert!(err.contains("unknown field `apiKey`"), "{err}");

    write(
        p.path(),
        r#"{"version": 1, "mcpServers": {"x": {"args": ["a"]}}}"#,
    );
    let err = settings::load(p.path()).unwrap_err().to_string();
    assert!(err.contains("`mcpServers.x`"), "{err}");

    write(
        p.path(),
        r#"{"version": 1, "teammates": [{"name": "a"}, {"name": "a"}]}"#,
    );
    let err = settings::load(p.path()).unwrap_err().to_string();
    assert!(err.contains("used twice"), "{err}");
}

#[test]
fn other_versions_are_refused() {
    let p = project();
    write(p.path(), r#"{"version": 2, "somethingNew": true}"#);
    let err = settings::load(p.path()).unwrap_err();
    assert!(matches!(err, SettingsError::Version { .. }), "{err}");
    assert!(err.to_string().contains("version 2"));
    write(p.path(), r#"{"model": "x"}"#);
    let err = settings::load(p.path()).unwrap_err().to_string();
    assert!(err.contains("`version`: missing"), "{err}");
}

#[test]
fn save_round_trips_atomically() {
    let p = project();
    let mut s = ProjectSettings {
        provider: Some(ProviderKind::Anthropic),
        model: Some("claude-sonnet-4-5".into()),
        preset: Some(ToolPreset::Readwrite),
        ..ProjectSettings::default()
    };
    s.tools.insert("bash".into(), Grant::Ask);
    settings::save(p.path(), &s).unwrap();
    assert_eq!(settings::load(p.path()).unwrap(), s);
    let entries: Vec<_> = std::fs::read_dir(p.path().join(".paddock"))
        .unwrap()
        .collect();
    assert_eq!(entries.len(), 1, "no temp file left behind");
    s.bash_network = true;
    settings::save(p.path(), &s).unwrap();
    assert!(settings::load(p.path()).unwrap().bash_network);
}

#[test]
fn a_broken_file_is_never_overwritten() {
    let p = project();
    let broken = "{\"version\": 1, \"preset\": \"full\",, }";
    write(p.path(), broken);
    let err = settings::save(p.path(), &ProjectSettings::default()).unwrap_err();
    assert!(matches!(err, SettingsError::Unsafe { .. }), "{err}");
    assert!(err.to_string().contains("left as is"));
    let on_disk = std::fs::read_to_string(settings::settings_path(p.path())).unwrap();
    assert_eq!(on_disk, broken);
}

#[test]
fn grants_map_to_a_policy() {
    let mut s = ProjectSettings {
        preset: Some(ToolPreset::Readonly),
        ..ProjectSettings::default()
    };
    s.tools.insert("bash".into(), Grant::Ask);
    s.tools.insert("grep".into(), Grant::Deny);
    let policy = settings::grant_policy(&s);
    assert_eq!(policy.preset, Some(ToolPreset::Readonly));
    assert_eq!(policy.extra, vec!["bash"]);
    assert_eq!(policy.ask, vec!["bash"]);
    assert_eq!(policy.deny, vec!["grep"]);
}

#[test]
fn the_committed_json_schema_is_current() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../docs/settings.schema.json");
    let generated = serde_json::to_string_pretty(&settings::json_schema()).unwrap() + "\n";
    let how = "cargo test -p paddock-host settings";
    paddock_protocol::generated::check_committed(&path, &generated, how).unwrap();
}
