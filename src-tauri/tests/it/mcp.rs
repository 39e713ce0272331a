//! MCP servers from the app: an import (pasted, or the project's own `.mcp.json`) waits on
//! the trust screen; a server added in the form is the user's own and trusted.

use paddock_fake_model::FakeServer;
use paddock_host::KeyStore;
use paddock_host::edit::Edit;
use paddock_protocol::{AppError, AppErrorCode, McpServerConfig};
use serde_json::json;

use crate::common::setup;

/// The host's edits the app's MCP commands make, with the app's error shape.
fn import(s: &crate::common::Setup, text: Option<String>) -> Result<Vec<String>, AppError> {
    Ok(Edit::new(s.desktop.trust(), &s.root).import_mcp_servers(text)?)
}

fn add(s: &crate::common::Setup, name: &str, config: McpServerConfig) -> Result<(), AppError> {
    Ok(Edit::new(s.desktop.trust(), &s.root).add_mcp_server(name, config)?)
}

fn set_value(
    keys: &dyn paddock_host::KeyStore,
    name: &str,
    value: Option<&str>,
) -> Result<(), AppError> {
    Ok(paddock_host::set_mcp_value(keys, name, value)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_wait_for_trust_and_added_servers_do_not() {
    let fake = FakeServer::start().await.unwrap();
    let s = setup(&fake, json!({}));
    let none = import(&s, None).unwrap_err();
    assert_eq!(none.code, AppErrorCode::Invalid);
    assert!(none.message.contains(".mcp.json"), "{}", none.message);

    std::fs::write(
        s.root.join(".mcp.json"),
        r#"{"mcpServers": {"gh": {"type": "http", "url": "https://h/mcp",
            "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}}}"#,
    )
    .unwrap();
    assert_eq!(import(&s, None).unwrap(), ["gh"]);
    let saved = paddock_host::settings::load(&s.root).unwrap();
    assert_eq!(
        saved.mcp_servers["gh"].headers["Authorization"],
        "Bearer ${GITHUB_TOKEN}"
    );
    let report = s.desktop.trust().assess(&s.root, &saved).report;
    let pending: Vec<&str> = report.pending.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(
        pending,
        ["mcpServers.gh"],
        "an import is not the user's own edit"
    );
    assert!(
        report.pending[0].what.contains("$GITHUB_TOKEN"),
        "{}",
        report.pending[0].what
    );

    let pasted = r#"{"servers": {"gh": {"type": "http", "url": "https://other/mcp"}}}"#;
    let clash = import(&s, Some(pasted.into())).unwrap_err();
    assert!(clash.message.contains("mcpServers.gh"), "{}", clash.message);
    let bad = import(
        &s,
        Some(r#"{"mcpServers": {"x": {"command": "a", "bogus": 1}}}"#.into()),
    )
    .unwrap_err();
    assert!(
        bad.message.contains("mcpServers.x.bogus"),
        "{}",
        bad.message
    );

    let config = McpServerConfig {
        command: Some("node".into()),
        args: vec!["server.js".into()],
        ..McpServerConfig::default()
    };
    add(&s, "local", config.clone()).unwrap();
    let saved = paddock_host::settings::load(&s.root).unwrap();
    let report = s.desktop.trust().assess(&s.root, &saved).report;
    assert!(
        report.pending.iter().all(|i| i.key != "mcpServers.local"),
        "{report:?}"
    );
    let twice = add(&s, "local", config).unwrap_err();
    assert!(twice.message.contains("already"), "{}", twice.message);
    let broken = McpServerConfig::default();
    assert_eq!(
        add(&s, "empty", broken).unwrap_err().code,
        AppErrorCode::Invalid
    );
}

#[derive(Default)]
struct Vars(std::sync::Mutex<std::collections::BTreeMap<String, String>>);

impl paddock_host::KeyStore for Vars {
    fn get(
        &self,
        _: paddock_protocol::ProviderKind,
    ) -> Result<Option<String>, paddock_host::KeyError> {
        Ok(None)
    }
    fn set(
        &self,
        _: paddock_protocol::ProviderKind,
        _: &str,
    ) -> Result<(), paddock_host::KeyError> {
        Ok(())
    }
    fn delete(&self, _: paddock_protocol::ProviderKind) -> Result<(), paddock_host::KeyError> {
        Ok(())
    }
    fn get_var(&self, name: &str) -> Result<Option<String>, paddock_host::KeyError> {
        Ok(self.0.lock().unwrap().get(name).cloned())
    }
    fn set_var(&self, name: &str, value: &str) -> Result<(), paddock_host::KeyError> {
        self.0.lock().unwrap().insert(name.into(), value.into());
        Ok(())
    }
    fn delete_var(&self, name: &str) -> Result<(), paddock_host::KeyError> {
        self.0.lock().unwrap().remove(name);
        Ok(())
    }
}

#[test]
fn server_values_go_to_the_keychain_by_variable_name() {
    let keys = Vars::default();
    set_value(&keys, " GITHUB_TOKEN ", Some("ghp_x")).unwrap();
    assert_eq!(
        keys.get_var("GITHUB_TOKEN").unwrap().as_deref(),
        Some("ghp_x")
    );
    set_value(&keys, "GITHUB_TOKEN", None).unwrap();
    assert_eq!(keys.get_var("GITHUB_TOKEN").unwrap(), None);
    for bad in ["", "1X", "A-B", "${X}"] {
        let err = set_value(&keys, bad, Some("v")).unwrap_err();
        assert_eq!(err.code, AppErrorCode::Invalid, "{bad}");
    }
}
