//! A project as a shell keeps it open: its MCP servers and a [`ProjectRuntime`], rebuilt
//! whenever the settings, the MCP tools or the stored keys change. The app keeps one per open
//! project; the CLI makes one for its run.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use paddock_core::{RuleBook, Tool};
use paddock_mcp::{DEFAULT_START_TIMEOUT, McpServers, ServerPath};
use paddock_protocol::{
    McpServerConfig, McpServerState, McpServerStatus, ProjectSettings, ToolGrantInfo,
};
use tokio::sync::watch;

use crate::keys::KeyStore;
use crate::tools::{ProjectTools, RunLimits};
use crate::{HostError, ProjectRuntime, Resolved, mcp_options};

/// One generation of a project's MCP servers, for one `mcpServers` configuration.
pub struct McpRun {
    config: BTreeMap<String, McpServerConfig>,
    servers: Arc<McpServers>,
    ready: watch::Receiver<bool>,
    /// (session, notice) pairs already said, so a session hears each thing once.
    told: Mutex<HashSet<(String, String)>>,
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

    pub fn statuses(&self) -> Vec<McpServerStatus> {
        self.servers.statuses()
    }

    /// Whether every server has started or failed.
    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// What a run of `session` starts by saying about the servers: one that did not start
    /// or went away (its tools are missing from the run), tools a server left out. Each
    /// once per session and server generation.
    pub fn notices_for(&self, session: &str) -> Vec<String> {
        let mut told = self.told.lock().unwrap_or_else(PoisonError::into_inner);
        self.statuses()
            .iter()
            .flat_map(status_notices)
            .filter(|n| told.insert((session.to_owned(), n.clone())))
            .collect()
    }

    fn tool_names(&self) -> Vec<String> {
        self.servers
            .tools()
            .iter()
            .map(|t| t.spec().name.clone())
            .collect()
    }
}

/// What the user should hear about one server before a run: nothing when it runs cleanly.
fn status_notices(status: &McpServerStatus) -> Vec<String> {
    let name = &status.name;
    match &status.state {
        McpServerState::Failed { error } => vec![format!(
            "MCP server '{name}' did not start: {error}; its tools are not available"
        )],
        McpServerState::Exited { reason } => vec![format!(
            "MCP server '{name}' stopped: {reason}; its tools are not available"
        )],
        McpServerState::Running { .. } => status
            .warnings
            .iter()
            .map(|w| format!("MCP server '{name}': {w}"))
            .collect(),
        McpServerState::Disabled | McpServerState::Starting => Vec::new(),
    }
}

/// What a cached runtime was built from; any difference means rebuild.
#[derive(PartialEq)]
struct RuntimeKey {
    settings: ProjectSettings,
    limits: RunLimits,
    mcp_tools: Vec<String>,
    keys_generation: u64,
}

/// Cached runtimes by the checkout they work in (`None`: the project's own folder).
type RuntimeSlots = HashMap<Option<PathBuf>, (RuntimeKey, Arc<ProjectRuntime>)>;

pub struct LiveProject {
    root: PathBuf,
    server_path: ServerPath,
    mcp: Mutex<Option<Arc<McpRun>>>,
    /// The runtime of the project's own folder (key `None`) and of each session worktree
    /// in use (key: its checkout).
    runtime: tokio::sync::Mutex<RuntimeSlots>,
    /// Held while a run starts, so two prompts to one session cannot both start it.
    pub(crate) start_lock: tokio::sync::Mutex<()>,
    /// Write locks of the workspace, shared by every session's agents.
    pub(crate) writes: Arc<paddock_core::WriteLocks>,
    /// Write locks of each session worktree (its sessions and teammates share them).
    worktree_writes: Mutex<HashMap<PathBuf, Arc<paddock_core::WriteLocks>>>,
    /// The argument rules every runtime of the project uses, replaced when they change.
    rules: RuleBook,
    /// Runtimes that may still have runs going: their network proxies take a changed
    /// `network` setting at once ("Always for this project").
    runtimes: Mutex<Vec<std::sync::Weak<ProjectRuntime>>>,
    /// Where `${NAME}`s of MCP servers come from when the environment has none.
    keys: Option<Arc<dyn KeyStore>>,
}

/// Write locks over `folder` that every Paddock process of this user shares (the CLI and
/// the app on one folder at once): the lock file lies in the private runtime folder, out of
/// every wall's sight. Without that folder, this process's calls still wait for each other.
fn writes_across(folder: &Path) -> paddock_core::WriteLocks {
    use sha2::Digest;
    let Some(dir) = paddock_sandbox::runtime_dir() else {
        return paddock_core::WriteLocks::new();
    };
    let digest = sha2::Sha256::digest(folder.as_os_str().as_encoded_bytes());
    let name: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
    paddock_core::WriteLocks::across_processes(dir.join(format!("writes-{name}.lock")))
}

impl LiveProject {
    /// The project at `root` (a canonical path). MCP servers get `server_path` as PATH.
    pub fn new(root: PathBuf, server_path: ServerPath) -> Self {
        let writes = Arc::new(writes_across(&root));
        Self {
            root,
            server_path,
            mcp: Mutex::new(None),
            runtime: tokio::sync::Mutex::new(HashMap::new()),
            start_lock: tokio::sync::Mutex::new(()),
            writes,
            worktree_writes: Mutex::default(),
            rules: RuleBook::default(),
            runtimes: Mutex::new(Vec::new()),
            keys: None,
        }
    }

    /// Reads MCP servers' `${NAME}`s from `keys` too (the app's keychain).
    pub fn with_keys(mut self, keys: Arc<dyn KeyStore>) -> Self {
        self.keys = Some(keys);
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The MCP servers for these settings, started in the background when the configuration
    /// is new (the previous generation is shut down). Call from within a Tokio runtime.
    pub fn mcp(&self, settings: &ProjectSettings) -> Arc<McpRun> {
        let mut current = self.mcp.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(run) = current
            .as_ref()
            .filter(|r| r.config == settings.mcp_servers)
        {
            return run.clone();
        }
        let project = self.root.display().to_string();
        let options = mcp_options(&self.root, self.server_path.clone());
        let servers = Arc::new(McpServers::with_callback(options, move |status| {
            tracing::info!(project = %project, server = %status.name, state = ?status.state, "mcp server");
        }));
        let (tx, ready) = watch::channel(settings.mcp_servers.is_empty());
        if !settings.mcp_servers.is_empty() {
            let (servers, config) = (servers.clone(), settings.mcp_servers.clone());
            let keys = self.keys.clone();
            tokio::spawn(async move {
                // The keychain answers over D-Bus, which blocks.
                let vars = match keys {
                    Some(keys) => {
                        let servers = config.clone();
                        tokio::task::spawn_blocking(move || crate::keys::mcp_vars(&servers, &*keys))
                            .await
                            .unwrap_or_default()
                    }
                    None => BTreeMap::new(),
                };
                servers.start_with_vars(&config, &vars).await;
                let _ = tx.send(true);
            });
        }
        let run = Arc::new(McpRun {
            config: settings.mcp_servers.clone(),
            servers,
            ready,
            told: Mutex::default(),
        });
        if let Some(old) = current.replace(run.clone()) {
            tokio::spawn(async move { old.servers.shutdown().await });
        }
        run
    }

    /// Stops the MCP servers (window closed, app quitting, CLI done).
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

    /// The runtime for running prompts with this configuration (its options applied): the
    /// real provider, the key from `keys` (or the environment), MCP tools once their servers
    /// have started.
    pub async fn runtime(
        &self,
        resolved: &Resolved,
        limits: RunLimits,
        keys: Arc<dyn KeyStore>,
        keys_generation: u64,
    ) -> Result<Arc<ProjectRuntime>, HostError> {
        self.runtime_in(resolved, limits, keys, keys_generation, None)
            .await
    }

    /// The write locks of the folder a session works in: the project's, or its worktree's.
    pub(crate) fn writes_for(
        &self,
        worktree: Option<&paddock_worktree::Worktree>,
    ) -> Arc<paddock_core::WriteLocks> {
        match worktree {
            None => self.writes.clone(),
            Some(w) => self
                .worktree_writes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(w.checkout().to_path_buf())
                .or_insert_with(|| Arc::new(writes_across(w.checkout())))
                .clone(),
        }
    }

    /// As [`Self::runtime`], for a session in `worktree` (its checkout is the project's
    /// folder, behind the worktree's wall) when one is given.
    pub async fn runtime_in(
        &self,
        resolved: &Resolved,
        limits: RunLimits,
        keys: Arc<dyn KeyStore>,
        keys_generation: u64,
        worktree: Option<&paddock_worktree::Worktree>,
    ) -> Result<Arc<ProjectRuntime>, HostError> {
        let settings = resolved.settings().clone();
        let mcp = self.mcp(&settings);
        mcp.wait_ready().await;
        let key = RuntimeKey {
            mcp_tools: mcp.tool_names(),
            settings,
            limits,
            keys_generation,
        };
        let slot = worktree.map(|w| w.checkout().to_path_buf());
        let mut cached = self.runtime.lock().await;
        if let Some((k, runtime)) = cached.get(&slot)
            && *k == key
        {
            return Ok(runtime.clone());
        }
        let project = match worktree {
            None => resolved.project(),
            Some(w) => resolved.clone().in_worktree(w)?.project(),
        };
        let tools = mcp.servers.runtime_tools();
        let limits = key.limits.clone();
        let rules = self.rules.clone();
        // The keychain answers over D-Bus, which blocks.
        let runtime = tokio::task::spawn_blocking(move || {
            ProjectRuntime::sharing_rules(project, Some(&*keys), tools, &limits, &rules)
        })
        .await
        .map_err(|e| HostError::Internal(e.to_string()))??;
        let mut runtime = runtime;
        runtime.learn_from_server().await;
        let runtime = Arc::new(runtime);
        {
            let mut live = self.runtimes.lock().unwrap_or_else(PoisonError::into_inner);
            live.retain(|r| r.strong_count() > 0);
            live.push(Arc::downgrade(&runtime));
        }
        cached.insert(slot, (key, runtime.clone()));
        Ok(runtime)
    }

    /// Applies the argument rules of this configuration to every run of the project at its
    /// next call, running ones included ("Always allow" saved a rule).
    pub fn reload_rules(&self, resolved: &Resolved) -> Result<(), HostError> {
        let settings = resolved.settings();
        crate::rules::load_into(&self.rules, &resolved.project())?;
        // The proxies of runs going on decide their next connection by the new rules (a
        // broken list was refused before it was saved; settings in code keep the old).
        if let Ok(policy) = crate::network::policy(&settings.network) {
            for runtime in self
                .runtimes
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .filter_map(std::sync::Weak::upgrade)
            {
                if let Some(fence) = &runtime.tools().env().network {
                    fence.proxy().set_policy(policy.clone());
                }
            }
        }
        Ok(())
    }

    /// Every tool with its effective grant and why, with the MCP tools that are up now
    /// (read again from any server that said they changed). Needs no model or key.
    pub async fn grants(&self, resolved: &Resolved) -> Result<Vec<ToolGrantInfo>, HostError> {
        let mcp = self.mcp(resolved.settings());
        mcp.servers.refresh_tools().await;
        let project = resolved.project();
        let tools = ProjectTools::new(
            &project,
            Vec::new(),
            None,
            mcp.servers.runtime_tools(),
            &RunLimits::interactive(),
        )?;
        Ok(tools.grant_info())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(state: McpServerState, warnings: &[&str]) -> McpServerStatus {
        McpServerStatus {
            name: "gh".into(),
            state,
            warnings: warnings.iter().map(|w| (*w).to_owned()).collect(),
            stderr_tail: None,
        }
    }

    #[test]
    fn only_what_is_missing_or_left_out_is_said() {
        let said = |state, warnings: &[&str]| status_notices(&status(state, warnings));
        assert_eq!(
            said(
                McpServerState::Exited {
                    reason: "killed".into()
                },
                &[]
            ),
            ["MCP server 'gh' stopped: killed; its tools are not available"]
        );
        assert_eq!(
            said(
                McpServerState::Running { tools: vec![] },
                &["tool 'x' left out: its name is taken"]
            ),
            ["MCP server 'gh': tool 'x' left out: its name is taken"]
        );
        assert!(said(McpServerState::Running { tools: vec![] }, &[]).is_empty());
        assert!(said(McpServerState::Disabled, &["ignored"]).is_empty());
        assert!(said(McpServerState::Starting, &[]).is_empty());
    }
}
