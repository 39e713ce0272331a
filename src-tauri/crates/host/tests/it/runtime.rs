use std::collections::BTreeMap;
use std::sync::Mutex;

use paddock_host::settings;
use paddock_host::{
    HostErrorKind, KeyError, KeyStore, ProjectRuntime, ProjectTools, Resolved, RunLimits,
    RunOptions, resolve_key,
};
use paddock_protocol::{
    Grant, ProjectSettings, ProviderKind, TeammateSettings, ToolPreset, WorkspaceMode,
};

fn project_with(settings: ProjectSettings) -> (tempfile::TempDir, Resolved) {
    let dir = tempfile::tempdir().unwrap();
    settings::save(dir.path(), &settings).unwrap();
    let project = Resolved::as_written(dir.path(), settings::load(dir.path()).unwrap()).unwrap();
    (dir, project)
}

/// The runtime for `resolved` with a run's `options`, applied once as a run applies them.
fn runtime(
    resolved: &Resolved,
    options: &RunOptions,
    keys: Option<&dyn KeyStore>,
) -> Result<ProjectRuntime, paddock_host::HostError> {
    let project = resolved.clone().with_options(options)?.project();
    ProjectRuntime::new(project, keys, Vec::new(), &RunLimits::default())
}

fn local() -> ProjectSettings {
    ProjectSettings {
        provider: Some(ProviderKind::OpenAiCompatible),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        model: Some("qwen".into()),
        ..ProjectSettings::default()
    }
}

#[test]
fn settings_and_flags_make_the_agent() {
    let mut s = local();
    s.preset = Some(ToolPreset::Readonly);
    s.tools.insert("bash".into(), Grant::Ask);
    s.max_turns = Some(4);
    let (_d, project) = project_with(s);
    let options = RunOptions {
        model: Some("llama".into()),
        deny: vec!["grep".into()],
        max_token_budget: Some(500),
        ..RunOptions::default()
    };
    let rt = runtime(&project, &options, None).unwrap();
    assert_eq!(rt.model_name(), "llama");
    let config = rt.agent_config();
    assert_eq!(config.max_turns, 4);
    assert_eq!(config.max_token_budget, Some(500));
    let info: BTreeMap<String, (Grant, String)> = rt
        .grant_info()
        .into_iter()
        .map(|i| (i.name, (i.grant, i.reason)))
        .collect();
    assert_eq!(info["file_read"].0, Grant::Allow);
    assert_eq!(
        info["grep"],
        (Grant::Deny, "denied — on the deny list".into())
    );
    assert_eq!(
        info["file_write"],
        (Grant::Deny, "denied — not in preset readonly".into())
    );
    // bash is Ask where the sandbox can confine it; otherwise Paddock withholds it.
    if rt.sandbox_status().bash_runs {
        assert_eq!(info["bash"].0, Grant::Ask);
    } else {
        assert!(
            info["bash"].1.contains("Paddock rule"),
            "{}",
            info["bash"].1
        );
    }
    assert!(
        !info.contains_key("delegate_to_agent"),
        "no teammates, no delegation tool"
    );
    assert_eq!(
        rt.tools().env().workspace_root,
        rt.project().root().join(".agent-workspace")
    );
}

#[test]
fn teammates_bring_the_delegation_tool_which_must_still_be_granted() {
    let mut s = local();
    s.teammates.push(TeammateSettings {
        name: "reviewer".into(),
        system_prompt: None,
        model: None,
        preset: Some(ToolPreset::Readonly),
        tools: BTreeMap::new(),
        max_turns: None,
    });
    s.workspace = WorkspaceMode::Project;
    let (_d, project) = project_with(s);
    let rt = runtime(&project, &RunOptions::default(), None).unwrap();
    let delegate = rt
        .grant_info()
        .into_iter()
        .find(|i| i.name == "delegate_to_agent")
        .unwrap();
    assert_eq!(delegate.grant, Grant::Deny);
    assert_eq!(rt.tools().env().workspace_root, rt.project().root());
    let opts = RunOptions {
        allow: vec!["delegate_to_agent".into()],
        ..RunOptions::default()
    };
    let rt = runtime(&project, &opts, None).unwrap();
    let delegate = rt
        .grant_info()
        .into_iter()
        .find(|i| i.name == "delegate_to_agent")
        .unwrap();
    assert_eq!(delegate.grant, Grant::Allow);
}

#[test]
fn missing_model_and_missing_key_are_clear_errors() {
    let (_d, project) = project_with(ProjectSettings {
        model: None,
        ..local()
    });
    let Err(err) = runtime(&project, &RunOptions::default(), None) else {
        panic!()
    };
    assert_eq!(err.kind(), HostErrorKind::Usage);
    assert!(err.to_string().contains("--model"), "{err}");

    let (_d, project) = project_with(local());
    let opts = RunOptions {
        provider: Some(ProviderKind::Anthropic),
        ..RunOptions::default()
    };
    let empty = FakeStore::default();
    // Only meaningful when the developer's shell has no Anthropic key set.
    if std::env::var_os("ANTHROPIC_API_KEY").is_none() {
        let Err(err) = runtime(&project, &opts, Some(&empty)) else {
            panic!()
        };
        assert_eq!(err.kind(), HostErrorKind::Provider);
        assert!(err.to_string().contains("needs an API key"), "{err}");
    }
}

#[test]
fn broken_settings_stop_the_project_from_opening() {
    let dir = tempfile::tempdir().unwrap();
    let path = settings::settings_path(dir.path());
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, "{\"version\": 1, \"preset\": \"everything\"}").unwrap();
    let trust = paddock_host::trust::TrustStore::new(dir.path().join("trust.json"));
    let err = Resolved::load(&trust, dir.path()).unwrap_err();
    assert_eq!(err.kind(), HostErrorKind::Settings);
    assert!(err.to_string().contains("`preset`"), "{err}");
}

#[derive(Default)]
pub struct FakeStore(pub Mutex<BTreeMap<String, String>>);

impl KeyStore for FakeStore {
    fn get(&self, p: ProviderKind) -> Result<Option<String>, KeyError> {
        Ok(self.0.lock().unwrap().get(p.as_str()).cloned())
    }
    fn set(&self, p: ProviderKind, key: &str) -> Result<(), KeyError> {
        self.0.lock().unwrap().insert(p.as_str().into(), key.into());
        Ok(())
    }
    fn delete(&self, p: ProviderKind) -> Result<(), KeyError> {
        self.0.lock().unwrap().remove(p.as_str());
        Ok(())
    }
}

struct Unreachable;

impl KeyStore for Unreachable {
    fn get(&self, _: ProviderKind) -> Result<Option<String>, KeyError> {
        Err(KeyError::Unavailable("no D-Bus session".into()))
    }
    fn set(&self, _: ProviderKind, _: &str) -> Result<(), KeyError> {
        Err(KeyError::Unavailable("no D-Bus session".into()))
    }
    fn delete(&self, _: ProviderKind) -> Result<(), KeyError> {
        Err(KeyError::Unavailable("no D-Bus session".into()))
    }
}

#[test]
fn keys_come_from_the_store_and_an_unreachable_keychain_says_how_to_fix_it() {
    if std::env::var_os("PADDOCK_OPENAI_COMPAT_API_KEY").is_some() {
        return; // The environment variable would win; nothing to check here.
    }
    let store = FakeStore::default();
    assert!(
        resolve_key(ProviderKind::OpenAiCompatible, Some(&store))
            .unwrap()
            .is_none()
    );
    store
        .set(ProviderKind::OpenAiCompatible, "sk-local-123")
        .unwrap();
    let key = resolve_key(ProviderKind::OpenAiCompatible, Some(&store))
        .unwrap()
        .unwrap();
    assert_eq!(key.expose(), "sk-local-123");
    assert!(
        !format!("{key:?}").contains("sk-local-123"),
        "Debug must not show the key"
    );

    let err = resolve_key(ProviderKind::OpenAiCompatible, Some(&Unreachable)).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("no keychain is reachable"), "{msg}");
    assert!(msg.contains("never stored in plain text"), "{msg}");
    assert!(
        msg.contains("PADDOCK_OPENAI_COMPAT_API_KEY is not set either"),
        "names the variable that would do: {msg}"
    );
}

fn grant_of<'a>(
    info: &'a [paddock_protocol::ToolGrantInfo],
    name: &str,
) -> &'a paddock_protocol::ToolGrantInfo {
    info.iter().find(|i| i.name == name).unwrap()
}

#[test]
fn grants_need_no_model_or_key() {
    let dir = tempfile::tempdir().unwrap();
    let mut settings = ProjectSettings {
        provider: Some(ProviderKind::Anthropic),
        preset: Some(ToolPreset::Readonly),
        ..ProjectSettings::default()
    };
    settings.tools.insert("file_write".into(), Grant::Ask);
    let project = Resolved::as_written(dir.path(), settings)
        .unwrap()
        .project();
    let info = ProjectTools::new(
        &project,
        Vec::new(),
        None,
        Vec::new(),
        &RunLimits::interactive(),
    )
    .unwrap()
    .grant_info();
    assert_eq!(grant_of(&info, "file_read").grant, Grant::Allow);
    assert_eq!(grant_of(&info, "file_write").grant, Grant::Ask);
    let bash = grant_of(&info, "bash");
    assert_eq!(bash.grant, Grant::Deny);
    assert!(bash.reason.contains("readonly"), "{}", bash.reason);
    assert!(info.iter().all(|i| i.name != "delegate_to_agent"));
}

#[test]
fn teammates_add_delegation() {
    let dir = tempfile::tempdir().unwrap();
    let settings = ProjectSettings {
        teammates: vec![TeammateSettings {
            name: "reviewer".into(),
            system_prompt: None,
            model: None,
            preset: None,
            tools: BTreeMap::new(),
            max_turns: None,
        }],
        ..ProjectSettings::default()
    };
    let project = Resolved::as_written(dir.path(), settings)
        .unwrap()
        .project();
    let info = ProjectTools::new(
        &project,
        Vec::new(),
        None,
        Vec::new(),
        &RunLimits::interactive(),
    )
    .unwrap()
    .grant_info();
    assert!(info.iter().any(|i| i.name == "delegate_to_agent"));
}

/// bash's side of the fence: .git and .paddock read-only, Paddock's data and the project's
/// own hidden paths out of sight.
#[test]
fn the_tool_env_carries_the_walls_extra_rules() {
    let mut s = local();
    s.hidden_paths = vec!["~/.secret-notes".into(), "/srv/private".into()];
    let (_d, project) = project_with(s);
    let env = project.project().tool_env(Vec::new());
    let root = project.root().to_path_buf();
    assert!(env.sandbox.read_only.contains(&root.join(".git")));
    assert!(env.sandbox.read_only.contains(&root.join(".paddock")));
    assert!(
        env.sandbox
            .hidden
            .contains(&std::path::PathBuf::from("/srv/private"))
    );
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap();
    assert!(env.sandbox.hidden.contains(&home.join(".secret-notes")));
    assert!(
        env.sandbox.readable.contains(&root),
        "the project stays readable"
    );
    assert!(
        !env.sandbox.readable.contains(&home.join(".notes")),
        "nothing readable the settings did not name"
    );
    let mut bad = local();
    bad.hidden_paths = vec!["relative/path".into()];
    let err = settings::validate(&bad).unwrap_err();
    assert_eq!(err.field, "hiddenPaths[0]");
    let mut bad = local();
    bad.readable_paths = vec!["notes".into()];
    let err = settings::validate(&bad).unwrap_err();
    assert_eq!(err.field, "readablePaths[0]");
}

/// `readablePaths` let bash read a folder in the hidden home, once trusted: a folder's
/// settings may not widen what bash reads on their own.
#[test]
fn readable_paths_wait_for_trust() {
    let mut s = local();
    s.readable_paths = vec!["~/.notes".into()];
    let (_d, project) = project_with(s);
    let home = std::env::var_os("HOME")
        .map(std::path::PathBuf::from)
        .unwrap();
    let env = project.project().tool_env(Vec::new());
    assert!(env.sandbox.readable.contains(&home.join(".notes")));
    let gated = paddock_host::trust::gated(project.settings());
    assert!(
        gated.iter().any(|g| g.key == "readablePaths.~/.notes"),
        "{gated:?}"
    );
    let restricted = paddock_host::trust::restrict(project.settings(), |_| false);
    assert!(restricted.readable_paths.is_empty());
}
