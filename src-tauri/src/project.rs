//! What the app keeps per open project: its MCP servers and a [`ProjectRuntime`], rebuilt
//! whenever the settings, the MCP tools or the stored keys change.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use paddock_host::{KeyStore, Project, ProjectRuntime, RunOptions, mcp_options};
use paddock_kernel::Tool;
use paddock_mcp::{DEFAULT_START_TIMEOUT, McpServers, ServerPath};
use paddock_protocol::{McpServerConfig, ProjectSettings, ProviderKind, ToolGrantInfo};
use tokio::sync::watch;

use crate::error::{AppResult, ToAppError};

/// One generation of a project's MCP servers, for one `mcpServers` configuration.
pub struct McpRun {
    config: BTreeMap<String, McpServerConfig>,
    pub servers: Arc<McpServers>,
    ready: watch::Receiver<bool>,
}

impl McpRun {
    /// Waits until every server has started or failed (each has its own start timeout),
    /// then reads again the tools of any server that said they changed.
    pub async fn wait_ready(&self) {
        let mut ready = self.ready.clone();
        let limit = DEFAULT_START_TIMEOUT + Duration::from_secs(5);
        let _ = tokio::time::timeout(limit, ready.wait_for(|r| *r)).await;
        self.servers.refresh_tools().await;
    }

    fn tool_names(&self) -> Vec<String> {
        self.servers
            .tools()
            .iter()
            .map(|t| t.spec().name.clone())
            .collect()
    }
}

/// What a cached runtime was built from; any difference means rebuild.
#[derive(PartialEq)]
struct RuntimeKey {
    settings: ProjectSettings,
    mcp_tools: Vec<String>,
    keys_generation: u64,
}

pub struct ProjectState {
    root: PathBuf,
    mcp: Mutex<Option<Arc<McpRun>>>,
    runtime: tokio::sync::Mutex<Option<(RuntimeKey, Arc<ProjectRuntime>)>>,
    /// Held while a run starts, so two prompts to one session cannot both start it.
    pub start_lock: tokio::sync::Mutex<()>,
}

impl ProjectState {
    pub fn new(root: PathBuf) -> Self {
        Self {
            root,
            mcp: Mutex::new(None),
            runtime: tokio::sync::Mutex::new(None),
            start_lock: tokio::sync::Mutex::new(()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The MCP servers for these settings, started in the background when the configuration
    /// is new (the previous generation is shut down).
    pub fn mcp(&self, settings: &ProjectSettings) -> Arc<McpRun> {
        let mut current = self.mcp.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(run) = current
            .as_ref()
            .filter(|r| r.config == settings.mcp_servers)
        {
            return run.clone();
        }
        let project = self.root.display().to_string();
        // The login shell's PATH: an app started from a launcher has a bare one.
        let options = mcp_options(&self.root, ServerPath::LoginShell);
        let servers = Arc::new(McpServers::with_callback(options, move |status| {
            tracing::info!(project = %project, server = %status.name, state = ?status.state, "mcp server");
        }));
        let (tx, ready) = watch::channel(settings.mcp_servers.is_empty());
        if !settings.mcp_servers.is_empty() {
            let (servers, config) = (servers.clone(), settings.mcp_servers.clone());
            tauri::async_runtime::spawn(async move {
                servers.start(&config).await;
                let _ = tx.send(true);
            });
        }
        let run = Arc::new(McpRun {
            config: settings.mcp_servers.clone(),
            servers,
            ready,
        });
        if let Some(old) = current.replace(run.clone()) {
            tauri::async_runtime::spawn(async move { old.servers.shutdown().await });
        }
        run
    }

    /// Stops the MCP servers (window closed, app quitting).
    pub async fn shutdown(&self) {
        let run = self
            .mcp
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(run) = run {
            run.servers.shutdown().await;
        }
    }

    /// The runtime for running prompts: the real provider, the key from the keychain (or the
    /// environment), MCP tools once their servers have started.
    pub async fn runtime(
        &self,
        settings: ProjectSettings,
        keys: Arc<dyn KeyStore>,
        keys_generation: u64,
    ) -> AppResult<Arc<ProjectRuntime>> {
        let mcp = self.mcp(&settings);
        mcp.wait_ready().await;
        let key = RuntimeKey {
            mcp_tools: mcp.tool_names(),
            settings,
            keys_generation,
        };
        let mut cached = self.runtime.lock().await;
        if let Some((k, runtime)) = cached.as_ref() {
            if *k == key {
                return Ok(runtime.clone());
            }
        }
        let project = Project {
            root: self.root.clone(),
            settings: key.settings.clone(),
        };
        let tools = mcp.servers.runtime_tools();
        // The keychain answers over D-Bus, which blocks.
        let runtime = tauri::async_runtime::spawn_blocking(move || {
            ProjectRuntime::new(project, &RunOptions::default(), Some(&*keys), tools)
        })
        .await
        .map_err(ToAppError::app_error)?
        .map_err(ToAppError::app_error)?;
        let runtime = Arc::new(runtime);
        *cached = Some((key, runtime.clone()));
        Ok(runtime)
    }

    /// Every tool with its effective grant and why, with the MCP tools that are up now
    /// (read again from any server that said they changed).
    pub async fn grants(&self, settings: &ProjectSettings) -> AppResult<Vec<ToolGrantInfo>> {
        let servers = &self.mcp(settings).servers;
        servers.refresh_tools().await;
        let tools = servers.runtime_tools();
        grant_info(&self.root, settings, tools)
    }
}

/// Grants do not depend on the model: a stand-in provider that is never called lets the host
/// compute them before a model or key is configured.
pub fn grant_info(
    root: &Path,
    settings: &ProjectSettings,
    tools: Vec<Arc<dyn Tool>>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let stand_in = RunOptions {
        provider: Some(ProviderKind::OpenAiCompatible),
        model: Some(settings.model.clone().unwrap_or_else(|| "none".into())),
        base_url: Some("http://127.0.0.1:9/v1".into()),
        ..RunOptions::default()
    };
    let project = Project {
        root: root.to_path_buf(),
        settings: settings.clone(),
    };
    let runtime =
        ProjectRuntime::new(project, &stand_in, None, tools).map_err(ToAppError::app_error)?;
    Ok(runtime.grant_info())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{Grant, TeammateSettings, ToolPreset};

    fn grant_of<'a>(info: &'a [ToolGrantInfo], name: &str) -> &'a ToolGrantInfo {
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
        let info = grant_info(dir.path(), &settings, Vec::new()).unwrap();
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
        let info = grant_info(dir.path(), &settings, Vec::new()).unwrap();
        assert!(info.iter().any(|i| i.name == "delegate_to_agent"));
    }
}
