use std::sync::Arc;

use paddock_core::{Agent, AgentConfig, CompactionConfig, Model, RuleBook, Tool};
use paddock_protocol::{ProjectSettings, ProviderKind, SandboxStatus, ToolGrantInfo};
use paddock_providers::{ApiKey, Provider, ProviderConfig};

use crate::keys::{KeyStore, resolve_key};
use crate::tools::{ProjectTools, RunLimits, TeamModel};
use crate::{HostError, Project, prompt};

/// The agent's name in events and delegation chains.
pub const MAIN_AGENT: &str = "main";

/// A project ready to run: effective settings, model, tools, sandbox.
pub struct ProjectRuntime {
    project: Project,
    provider: ProviderKind,
    model_name: String,
    model: Arc<dyn Model>,
    /// The same connection, for what only a vendor answers (its models' windows).
    vendor: Provider,
    tools: ProjectTools,
    /// Learned from the server or the built-in table.
    context_window: Option<u32>,
    /// Whether the model reads images: the `images` setting, else Paddock's table, else
    /// what the server says of it (learned); `None`: nobody says.
    takes_images: Option<bool>,
}

impl ProjectRuntime {
    /// Finds the key, builds the provider and the project's tools with `runtime_tools`
    /// (MCP), for `project` (a run's options already applied: [`crate::Resolved`]).
    pub fn new(
        project: Project,
        keys: Option<&dyn KeyStore>,
        runtime_tools: Vec<Arc<dyn Tool>>,
        limits: &RunLimits,
    ) -> Result<Self, HostError> {
        let rules = RuleBook::default();
        Self::sharing_rules(project, keys, runtime_tools, limits, &rules)
    }

    /// As [`Self::new`], with the project's argument rules in `rules`, shared with the
    /// project's other runtimes (see [`ProjectTools::sharing_rules`]).
    pub fn sharing_rules(
        project: Project,
        keys: Option<&dyn KeyStore>,
        runtime_tools: Vec<Arc<dyn Tool>>,
        limits: &RunLimits,
        rules: &RuleBook,
    ) -> Result<Self, HostError> {
        let s = project.settings();
        let provider = s.provider.unwrap_or(ProviderKind::OpenAiCompatible);
        // One message for both shells: each names its own way to choose.
        let model_name = s.model.clone().ok_or(crate::error::RequestError::NoModel)?;
        let key = resolve_key(provider, keys)?;
        let secrets: Vec<String> = key.iter().map(|k| k.expose().to_owned()).collect();
        let vendor = build_model(provider, s, key, &model_name)?;
        project.policy().check_model(provider, vendor.base_url())?;
        let model: Arc<dyn Model> = Arc::new(vendor.clone());
        let tools = ProjectTools::sharing_rules(
            &project,
            secrets,
            Some(TeamModel {
                name: &model_name,
                model: model.clone(),
            }),
            runtime_tools,
            limits,
            rules,
        )?;
        let takes_images = project
            .settings()
            .images
            .or_else(|| paddock_providers::takes_images(provider, &model_name));
        Ok(Self {
            takes_images,
            project,
            provider,
            model_name,
            model,
            vendor,
            tools,
            context_window: None,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The settings with the run's overrides applied.
    pub fn settings(&self) -> &ProjectSettings {
        self.project.settings()
    }

    pub fn provider(&self) -> ProviderKind {
        self.provider
    }

    pub fn model_name(&self) -> &str {
        &self.model_name
    }

    pub fn model(&self) -> &Arc<dyn Model> {
        &self.model
    }

    pub fn tools(&self) -> &ProjectTools {
        &self.tools
    }

    pub fn sandbox_status(&self) -> &SandboxStatus {
        self.tools.sandbox_status()
    }

    /// Every tool with its effective state and why.
    pub fn grant_info(&self) -> Vec<ToolGrantInfo> {
        self.tools.grant_info()
    }

    /// The main agent's configuration: the system prompt (Paddock's, the project's text, the
    /// project's instructions, read now so edits apply to the next prompt), limits, window.
    pub fn agent_config(&self) -> AgentConfig {
        let s = self.project.settings();
        let mut config = AgentConfig::new(MAIN_AGENT, self.model_name.clone());
        let instructions = crate::instructions::load(self.project.root());
        let tools: Vec<String> = self
            .tools
            .resolved()
            .granted_names()
            .map(str::to_owned)
            .collect();
        let workspace = self.project.workspace_root().display().to_string();
        let built_in = prompt::built_in(&prompt::PromptFacts {
            agent: MAIN_AGENT,
            role: None,
            workspace: &workspace,
            mode: s.workspace,
            tools: &tools,
            date: &prompt::today(),
        });
        config.system_prompt = Some(prompt::system_prompt(
            built_in,
            s.system_prompt.as_deref(),
            s.replace_system_prompt,
            &instructions.text,
        ));
        config.notices = instructions.notices;
        config.pricing = crate::pricing::pricing_of(s, self.provider, &self.model_name);
        config.grants = self.tools.policy().clone();
        if let Some(t) = s.max_turns {
            config.max_turns = t;
        }
        config.max_token_budget = s.max_token_budget;
        // Unset, each provider bounds a reply its own way (OpenAI-compatible servers: 4096).
        config.max_output_tokens = s.max_output_tokens;
        config.context_window = s.context_window.or(self.context_window);
        config.compaction = Some(match s.compaction {
            Some(c) => CompactionConfig {
                auto: c.auto,
                threshold_percent: c.threshold_percent,
            },
            None => CompactionConfig::default(),
        });
        config
    }

    /// The model's window as the server or Paddock's table tells it (a setting wins).
    pub fn context_window(&self) -> Option<u32> {
        self.project
            .settings()
            .context_window
            .or(self.context_window)
    }

    /// Whether the model reads images (see [`Self::learn_from_server`]).
    pub fn takes_images(&self) -> Option<bool> {
        self.takes_images
    }

    /// Asks the server (or Paddock's table) for the model's window and whether it reads
    /// images, where the settings do not say; the two asks go together. Bounded in time;
    /// never fails (a small default window, images unknown, when nothing is known).
    pub(crate) async fn learn_from_server(&mut self) {
        let s = self.project.settings();
        let ask_window = s.context_window.is_none();
        let ask_images = self.takes_images.is_none();
        let (window, takes) = tokio::join!(
            async { ask_window.then_some(self.vendor.context_window(&self.model_name).await) },
            async { ask_images.then_some(self.vendor.takes_images(&self.model_name).await) },
        );
        if let Some(window) = window {
            tracing::info!(model = %self.model_name, tokens = window.tokens, source = ?window.source, "context window");
            self.context_window = Some(window.tokens);
        }
        if let Some(takes) = takes.flatten() {
            tracing::info!(model = %self.model_name, takes, "images, as the server says");
            self.takes_images = Some(takes);
            let limits = crate::project::image_limits(self.provider, Some(takes));
            self.tools.env().images.set(limits);
        }
    }

    /// A fresh main agent (no history) wired to this project's model and tools.
    pub fn agent(&self) -> Agent {
        Agent::new(
            self.agent_config(),
            self.model.clone(),
            self.tools.registry().clone(),
        )
    }
}

fn build_model(
    provider: ProviderKind,
    s: &ProjectSettings,
    key: Option<ApiKey>,
    model: &str,
) -> Result<Provider, HostError> {
    let mut config =
        ProviderConfig::new(provider).with_tool_calling(s.tool_calling.unwrap_or_default());
    if let Some(url) = s.base_url.as_deref() {
        config = config.with_base_url(url);
    }
    if let Some(key) = key {
        config = config.with_api_key(key);
    }
    // Headless fallback for whatever the settings and flags left unset.
    config = config.with_env();
    // What auto tool calling learned of this server and model in earlier runs, and what
    // it learns in this one (compatible servers; a forced mode ignores both).
    if let (ProviderKind::OpenAiCompatible, Some(file), Some(base)) = (
        provider,
        crate::tool_modes::default_file(),
        config.base_url.clone(),
    ) {
        let remembered = crate::tool_modes::remembered(&file, &base, model);
        let model = model.to_owned();
        config = config
            .with_remembered_prompted(remembered)
            .on_prompted(move |why| crate::tool_modes::remember(&file, &base, &model, why));
    }
    Ok(Provider::new(config)?)
}
