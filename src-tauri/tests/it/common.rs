use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use paddock_desktop::state::Desktop;
use paddock_fake_model::FakeServer;
use paddock_host::{KeyError, KeyStore};
use paddock_protocol::{AgentEvent, ProviderKind};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::sync::mpsc;

/// A keychain in memory; `broken` answers like a machine without a Secret Service.
#[derive(Default)]
pub struct MemoryKeys {
    pub keys: Mutex<HashMap<ProviderKind, String>>,
    pub broken: bool,
}

impl KeyStore for MemoryKeys {
    fn get(&self, provider: ProviderKind) -> Result<Option<String>, KeyError> {
        self.check()?;
        Ok(self.keys.lock().unwrap().get(&provider).cloned())
    }
    fn set(&self, provider: ProviderKind, key: &str) -> Result<(), KeyError> {
        self.check()?;
        self.keys.lock().unwrap().insert(provider, key.to_owned());
        Ok(())
    }
    fn delete(&self, provider: ProviderKind) -> Result<(), KeyError> {
        self.check()?;
        self.keys.lock().unwrap().remove(&provider);
        Ok(())
    }
}

impl MemoryKeys {
    fn check(&self) -> Result<(), KeyError> {
        if self.broken {
            Err(KeyError::Unavailable(
                "org.freedesktop.secrets was not provided".into(),
            ))
        } else {
            Ok(())
        }
    }
}

/// A data dir, a project folder pointed at the fake server, and the app state over them.
pub struct Setup {
    _data: TempDir,
    _project: TempDir,
    pub root: PathBuf,
    pub desktop: Desktop,
}

pub fn setup(fake: &FakeServer, extra: Value) -> Setup {
    let data = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let root = project.path().canonicalize().unwrap();
    let mut settings = json!({
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": format!("{}/v1", fake.url()),
        "model": "fake-model",
    });
    settings
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    write_settings(&root, &settings);
    let desktop = Desktop::new(
        data.path(),
        trust_store(data.path()),
        Arc::new(MemoryKeys::default()),
    );
    // The user's own test project: its settings are trusted, as they would be after the
    // trust screen.
    let written = paddock_host::settings::load(&root).unwrap();
    desktop.trust().trust(&root, &written).unwrap();
    Setup {
        _data: data,
        _project: project,
        root,
        desktop,
    }
}

/// A trust record of its own for each test.
pub fn trust_store(dir: &Path) -> paddock_host::trust::TrustStore {
    paddock_host::trust::TrustStore::new(dir.join("config/trust.json"))
}

pub fn write_settings(root: &Path, settings: &Value) {
    std::fs::create_dir_all(root.join(".paddock")).unwrap();
    std::fs::write(
        root.join(".paddock/settings.json"),
        serde_json::to_string_pretty(settings).unwrap(),
    )
    .unwrap();
}

/// Receives events until `stop` matches one (returned with everything before it).
pub async fn events_until(
    rx: &mut mpsc::UnboundedReceiver<AgentEvent>,
    stop: impl Fn(&AgentEvent) -> bool,
) -> Vec<AgentEvent> {
    let mut seen = Vec::new();
    loop {
        let event = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("no matching event within 20 s; saw {seen:#?}"))
            .unwrap_or_else(|| panic!("the event channel closed; saw {seen:#?}"));
        let done = stop(&event);
        seen.push(event);
        if done {
            return seen;
        }
    }
}

pub fn finished(e: &AgentEvent) -> bool {
    matches!(e, AgentEvent::RunFinished { .. })
}
