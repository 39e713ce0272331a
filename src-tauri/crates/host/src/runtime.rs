use std::sync::Arc;

use paddock_kernel::tool::typed;
use paddock_kernel::tools::{DelegateTool, Team, TeamMember, register_builtin_tools};
use paddock_kernel::{
    Agent, AgentConfig, GrantPolicy, Model, Tool, ToolEnv, ToolRegistry, settings,
};
use paddock_protocol::{ProjectSettings, ProviderKind, SandboxStatus, ToolGrantInfo};
use paddock_providers::{ApiKey, Provider, ProviderConfig};

use crate::keys::{KeyStore, resolve_key};
use crate::{HostError, Project, RunOptions};

/// The agent's name in events and delegation chains.
pub const MAIN_AGENT: &str = "main";

/// A project ready to run: effective settings, model, tools, sandbox.
pub struct ProjectRuntime {
    project: Project,
    provider: ProviderKind,
    model_name: String,
    model: Arc<dyn Model>,
    registry: Arc<ToolRegistry>,
    env: Arc<ToolEnv>,
    policy: GrantPolicy,
    sandbox: SandboxStatus,
}

impl ProjectRuntime {
    /// Applies `options` over the project's settings, finds the key, builds the provider
    /// and registers the built-in tools, the teammates and `runtime_tools` (MCP).
    pub fn new(
        project: Project,
        options: &RunOptions,
        keys: Option<&dyn KeyStore>,
        runtime_tools: Vec<Arc<dyn Tool>>,
    ) -> Result<Self, HostError> {
        let effective = options.apply(&project.settings);
        settings::validate(&effective)
            .map_err(|(field, why)| HostError::Usage(format!("{field}: {why}")))?;
        let project = Project {
            root: project.root,
            settings: effective,
        };
        let s = &project.settings;
        let provider = s.provider.unwrap_or(ProviderKind::OpenAiCompatible);
        let model_name = s.model.clone().ok_or_else(|| {
            HostError::Usage(
                "no model is set: pass --model or set \"model\" in .paddock/settings.json".into(),
            )
        })?;
        let key = resolve_key(provider, keys)?;
        let secrets: Vec<String> = key.iter().map(|k| k.expose().to_owned()).collect();
        let model = build_model(provider, s.base_url.as_deref(), key)?;

        let env = Arc::new(project.tool_env(secrets));
        let sandbox = paddock_kernel::sandbox::status(&env);
        let mut registry = ToolRegistry::new();
        register_builtin_tools(&mut registry).map_err(|e| HostError::Usage(e.to_string()))?;
        if !s.teammates.is_empty() {
            let team = team(s, &model_name, &model);
            registry
                .register(typed(DelegateTool::new(Arc::new(team))))
                .map_err(|e| HostError::Usage(e.to_string()))?;
        }
        for tool in runtime_tools {
            // A name clash with a built-in is reported, not fatal: the built-in wins.
            if let Err(e) = registry.register_runtime(tool) {
                tracing::warn!("runtime tool not registered: {e}");
            }
        }
        let mut policy = settings::grant_policy(s);
        policy.framework_deny = framework_deny(&sandbox);
        Ok(Self {
            project,
            provider,
            model_name,
            model,
            registry: Arc::new(registry),
            env,
            policy,
            sandbox,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The settings with the run's overrides applied.
    pub fn settings(&self) -> &ProjectSettings {
        &self.project.settings
    }

    pub fn provider(&self) -> ProviderKind {
        self.provider
    }

    pub fn model_name(&self) -> &str {
        &self.model_name
    }

    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    pub fn env(&self) -> &Arc<ToolEnv> {
        &self.env
    }

    pub fn sandbox_status(&self) -> &SandboxStatus {
        &self.sandbox
    }

    /// Every tool with its effective state and why.
    pub fn grant_info(&self) -> Vec<ToolGrantInfo> {
        self.policy.resolve(&self.registry).info().to_vec()
    }

    /// The main agent's configuration.
    pub fn agent_config(&self) -> AgentConfig {
        let s = &self.project.settings;
        let mut config = AgentConfig::new(MAIN_AGENT, self.model_name.clone());
        config.system_prompt = s.system_prompt.clone();
        config.grants = self.policy.clone();
        if let Some(t) = s.max_turns {
            config.max_turns = t;
        }
        config.max_token_budget = s.max_token_budget;
        config
    }

    /// A fresh main agent (no history) wired to this project's model, tools and workspace.
    pub fn agent(&self) -> Agent {
        Agent::new(
            self.agent_config(),
            self.model.clone(),
            self.registry.clone(),
        )
        .with_env(self.env.clone())
    }
}

/// Bash is withheld when it could not run confined and the settings do not accept that.
fn framework_deny(sandbox: &SandboxStatus) -> Vec<(String, String)> {
    if sandbox.bash_runs {
        Vec::new()
    } else {
        vec![(
            "bash".to_owned(),
            format!(
                "the OS sandbox is not available here ({}) and the settings do not allow \
                 unconfined bash",
                sandbox.summary
            ),
        )]
    }
}

fn build_model(
    provider: ProviderKind,
    base_url: Option<&str>,
    key: Option<ApiKey>,
) -> Result<Arc<dyn Model>, HostError> {
    let mut config = ProviderConfig::new(provider);
    if let Some(url) = base_url {
        config = config.with_base_url(url);
    }
    if let Some(key) = key {
        config = config.with_api_key(key);
    }
    // Headless fallback for whatever the settings and flags left unset.
    config = config.with_env();
    Ok(Arc::new(Provider::new(config)?))
}

fn team(s: &ProjectSettings, main_model: &str, model: &Arc<dyn Model>) -> Team {
    Team::new(s.teammates.iter().map(|t| {
        let mut config = AgentConfig::new(
            t.name.clone(),
            t.model.clone().unwrap_or_else(|| main_model.to_owned()),
        );
        config.system_prompt = t.system_prompt.clone();
        config.grants =
            GrantPolicy::from_overrides(t.preset, t.tools.iter().map(|(n, g)| (n.as_str(), *g)));
        if let Some(turns) = t.max_turns {
            config.max_turns = turns;
        }
        TeamMember {
            config,
            model: model.clone(),
        }
    }))
}
