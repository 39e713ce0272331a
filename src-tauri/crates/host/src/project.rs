use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_guard::READ_ONLY_DIRS;
use paddock_protocol::{ProjectSettings, ProviderKind, SandboxStatus};
use paddock_sandbox::SandboxConfig;
use paddock_tools::{ImageSupport, ToolEnv};

use crate::HostError;

/// A project folder and its settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Project {
    /// Absolute, symlinks resolved. In a session's worktree, the project's folder inside
    /// its checkout.
    root: PathBuf,
    settings: ProjectSettings,
    /// Set when `root` is a session's worktree of the project's repository.
    worktree: Option<WorktreeWall>,
    /// The machine's managed policy (applied in `settings`; its deny rules apart).
    policy: Arc<crate::managed::ManagedPolicy>,
}

/// What the wall of a session in a worktree differs by: bash may write the checkout's own
/// git folder (a commit there is the session's own), and reads the project repository's
/// objects (read-only) instead of the project's folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeWall {
    /// The project repository's shared git folder, read-only.
    pub common_dir: PathBuf,
    /// The user's main checkout (the repository's top): hidden but for `common_dir`,
    /// wherever it lies.
    pub main: PathBuf,
    /// The session's checkout: `hiddenPaths` inside `main` are hidden here too.
    pub checkout: PathBuf,
}

impl WorktreeWall {
    pub fn of(worktree: &paddock_worktree::Worktree) -> Self {
        Self {
            common_dir: worktree.common_dir().to_path_buf(),
            main: worktree.top().to_path_buf(),
            checkout: worktree.checkout().to_path_buf(),
        }
    }
}

impl Project {
    /// Built only from a [`crate::resolved::Resolved`]: the one place settings in effect
    /// are computed.
    pub(crate) fn resolved(
        root: PathBuf,
        settings: ProjectSettings,
        worktree: Option<WorktreeWall>,
        policy: Arc<crate::managed::ManagedPolicy>,
    ) -> Self {
        Self {
            root,
            settings,
            worktree,
            policy,
        }
    }

    /// The machine's managed policy.
    pub fn policy(&self) -> &crate::managed::ManagedPolicy {
        &self.policy
    }

    /// The project's folder (in a session's worktree, its folder inside the checkout).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The settings in effect.
    pub fn settings(&self) -> &ProjectSettings {
        &self.settings
    }

    /// How the wall of a session in a worktree differs, when it works in one.
    pub fn worktree(&self) -> Option<&WorktreeWall> {
        self.worktree.as_ref()
    }

    /// Where the file tools and bash work.
    pub fn workspace_root(&self) -> PathBuf {
        self.settings.workspace.root(&self.root)
    }

    /// The tool environment for these settings. `secrets` are values to redact.
    /// The limits `file_read` scales images to, when the model is known to take images
    /// (the `images` setting, else Paddock's table; the runtime adds what the server says).
    fn image_limits(&self) -> Option<paddock_images::Limits> {
        let provider = self
            .settings
            .provider
            .unwrap_or(ProviderKind::OpenAiCompatible);
        let model = self.settings.model.as_deref().unwrap_or_default();
        let takes = self
            .settings
            .images
            .or_else(|| paddock_providers::takes_images(provider, model));
        image_limits(provider, takes)
    }

    pub fn tool_env(&self, secrets: Vec<String>) -> Arc<ToolEnv> {
        let network = crate::network::fence(&self.settings);
        let network_rules = network
            .as_ref()
            .filter(|_| crate::network::bash_uses_fence(&self.settings))
            .map(paddock_wall::NetworkFence::rule_count);
        Arc::new(ToolEnv {
            workspace_root: self.workspace_root(),
            project_root: Some(self.root.clone()),
            workspace_mode: self.settings.workspace,
            secrets,
            images: ImageSupport::new(self.image_limits()),
            // The project's argument rules arrive with the tools (`ProjectTools`).
            rules: paddock_core::RuleBook::default(),
            sandbox: self.sandbox_config(network_rules),
            network,
        })
    }

    /// bash's wall for these settings; `network_rules`: how many host rules its fence has
    /// (none: bash has no fence).
    pub(crate) fn sandbox_config(&self, network_rules: Option<usize>) -> SandboxConfig {
        SandboxConfig {
            bash_network: self.settings.bash_network,
            network_rules,
            allow_unconfined: self.settings.allow_unconfined_bash,
            // bash's side of the read-only rule the file tools follow; a worktree's own
            // git folder is the session's (its config and hooks stay read-only as in
            // every repository of the workspace).
            read_only: READ_ONLY_DIRS
                .iter()
                .filter(|d| self.worktree.is_none() || **d != ".git")
                .map(|d| self.root.join(d))
                .collect(),
            // Paddock's own data wherever it was put (sessions of every project, trust).
            own: crate::places::data_dirs(),
            auto_run: self.settings.auto_run_files.clone(),
            loopback_ports: crate::network::loopback_ports(&self.settings),
            hidden: self.hidden(),
            fenced: crate::places::fenced_dirs()
                .into_iter()
                .chain(self.worktree.iter().map(|w| w.main.clone()))
                .collect(),
            // The project stays readable (in the agent's own workspace mode bash reads
            // the code beside it), and what the user made readable. A worktree reads
            // the objects its clone borrows, never the project's own checkout.
            readable: std::iter::once(self.root.clone())
                .chain(self.worktree.iter().map(|w| w.common_dir.clone()))
                .chain(
                    self.settings
                        .readable_paths
                        .iter()
                        .filter_map(|p| expand_home(p)),
                )
                .collect(),
            ..SandboxConfig::default()
        }
    }

    /// The `hiddenPaths`; in a worktree, those inside the main checkout also at the same
    /// place in the session's checkout (a tracked or copied secret comes along otherwise).
    fn hidden(&self) -> Vec<PathBuf> {
        let listed: Vec<PathBuf> = self
            .settings
            .hidden_paths
            .iter()
            .filter_map(|p| expand_home(p))
            .collect();
        let mapped: Vec<PathBuf> = self
            .worktree
            .iter()
            .flat_map(|w| {
                listed
                    .iter()
                    .filter_map(|p| p.strip_prefix(&w.main).ok())
                    .map(|rel| w.checkout.join(rel))
            })
            .collect();
        listed.into_iter().chain(mapped).collect()
    }

    /// What bash would run under right now.
    pub fn sandbox_status(&self) -> SandboxStatus {
        self.tool_env(Vec::new()).sandbox_status()
    }
}

/// The limits images are scaled to for `provider`, when the model takes them; unknown or
/// no: none (text only).
pub(crate) fn image_limits(
    provider: ProviderKind,
    takes: Option<bool>,
) -> Option<paddock_images::Limits> {
    (takes == Some(true)).then_some(match provider {
        ProviderKind::Anthropic => paddock_images::Limits::ANTHROPIC,
        ProviderKind::OpenAi | ProviderKind::OpenAiCompatible => paddock_images::Limits::OPENAI,
    })
}

pub fn canonical_dir(dir: &Path) -> Result<PathBuf, HostError> {
    let root = std::fs::canonicalize(dir).map_err(|source| HostError::Io {
        context: format!("cannot open project folder {}", dir.display()),
        source,
    })?;
    if !root.is_dir() {
        return Err(crate::error::RequestError::NotAFolder {
            path: root.to_owned(),
        }
        .into());
    }
    Ok(root)
}

/// `~/x` under the home folder; other paths must be absolute (relative ones are ignored).
fn expand_home(path: &str) -> Option<PathBuf> {
    match path.strip_prefix("~/") {
        Some(rest) => std::env::var_os("HOME").map(|h| PathBuf::from(h).join(rest)),
        None => Some(PathBuf::from(path)).filter(|p| p.is_absolute()),
    }
}
