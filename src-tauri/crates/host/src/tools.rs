//! The tools of a project: the built-ins in its workspace, its teammates, the MCP tools, and
//! the grants over them. Listing grants needs no model or key.

use std::sync::Arc;

use futures_util::StreamExt;
use paddock_core::{
    AgentConfig, GrantPolicy, Model, ModelError, ModelRequest, ModelStream, ResolvedTools,
    RuleBook, Tool, ToolRegistry,
};
use paddock_protocol::{ErrorKind, Grant, SandboxStatus, ToolGrantInfo, ToolPreset};
use paddock_tools::{Team, TeamMember, ToolEnv, register_builtin_tools, registry_with_team};

use crate::{HostError, Project, RunOptions, settings};

/// The registry, the workspace the tools work in, the grants and the sandbox status.
pub struct ProjectTools {
    registry: Arc<ToolRegistry>,
    env: Arc<ToolEnv>,
    policy: GrantPolicy,
    sandbox: SandboxStatus,
}

/// Bounds a run puts on grants beyond what the settings say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunLimits {
    /// A preset given for this run: tools that change things and are not in it are denied
    /// wherever they are granted (settings, teammates, MCP), except `ceiling_exceptions`.
    pub ceiling: Option<ToolPreset>,
    pub ceiling_exceptions: Vec<String>,
    /// Someone can answer approvals (the app): MCP tools nobody granted ask; otherwise they
    /// are denied.
    pub interactive: bool,
}

impl RunLimits {
    /// The app: no ceiling, a person answers.
    pub fn interactive() -> Self {
        Self {
            interactive: true,
            ..Self::default()
        }
    }

    /// What the run's flags bound: a `--preset` is a ceiling the other flags may pass.
    pub fn from_options(options: &RunOptions, interactive: bool) -> Self {
        Self {
            ceiling: options.preset,
            ceiling_exceptions: options.allow.iter().chain(&options.ask).cloned().collect(),
            interactive,
        }
    }
}

/// The model teammates talk to, with the main agent's model name.
pub struct TeamModel<'a> {
    pub name: &'a str,
    pub model: Arc<dyn Model>,
}

impl ProjectTools {
    /// Registers the built-in tools in the project's workspace, `delegate_to_agent` when the
    /// settings name teammates, then `runtime_tools` (MCP; a clash with a built-in is
    /// reported, the built-in wins). Without `team_model` teammates have no model: fine for
    /// listing grants, an error if one is asked to work. `secrets` are values to redact.
    pub fn new(
        project: &Project,
        secrets: Vec<String>,
        team_model: Option<TeamModel<'_>>,
        runtime_tools: Vec<Arc<dyn Tool>>,
        limits: &RunLimits,
    ) -> Result<Self, HostError> {
        let rules = RuleBook::default();
        Self::sharing_rules(project, secrets, team_model, runtime_tools, limits, &rules)
    }

    /// As [`Self::new`], with the project's argument rules put in `rules`, a book other
    /// runtimes of the project share: a rule saved during a run applies at its next call.
    pub fn sharing_rules(
        project: &Project,
        secrets: Vec<String>,
        team_model: Option<TeamModel<'_>>,
        runtime_tools: Vec<Arc<dyn Tool>>,
        limits: &RunLimits,
        rules: &RuleBook,
    ) -> Result<Self, HostError> {
        crate::rules::load_into(rules, project)?;
        let s = &project.settings();
        let env = Arc::new(ToolEnv {
            rules: rules.clone(),
            ..ToolEnv::clone(&project.tool_env(secrets))
        });
        let sandbox = env.sandbox_status();
        let team = (!s.teammates.is_empty()).then(|| match team_model {
            Some(m) => team(project, m.name, &m.model, rules),
            None => team(
                project,
                s.model.as_deref().unwrap_or_default(),
                &(Arc::new(NoModel) as Arc<dyn Model>),
                rules,
            ),
        });
        let registry = registry_with_team(team, |registry| {
            register_builtin_tools(registry, &env)?;
            for tool in runtime_tools {
                if let Err(e) = registry.register_runtime(tool) {
                    tracing::warn!("runtime tool not registered: {e}");
                }
            }
            Ok(())
        })
        .map_err(|e| crate::field_error::FieldError::new("tools", e.to_string()))?;
        let mut policy = settings::grant_policy(s);
        policy.rules = rules.clone();
        policy.framework_deny = framework_deny(&sandbox);
        policy.ceiling = limits.ceiling;
        policy
            .ceiling_exceptions
            .clone_from(&limits.ceiling_exceptions);
        policy.runtime_default = if limits.interactive {
            Grant::Ask
        } else {
            Grant::Deny
        };
        Ok(Self {
            registry,
            env,
            policy,
            sandbox,
        })
    }

    pub fn registry(&self) -> &Arc<ToolRegistry> {
        &self.registry
    }

    pub fn env(&self) -> &Arc<ToolEnv> {
        &self.env
    }

    pub fn policy(&self) -> &GrantPolicy {
        &self.policy
    }

    pub fn sandbox_status(&self) -> &SandboxStatus {
        &self.sandbox
    }

    /// The tools the main agent may use.
    pub fn resolved(&self) -> ResolvedTools {
        self.policy.resolve(&self.registry)
    }

    /// Every tool with its effective state and why.
    pub fn grant_info(&self) -> Vec<ToolGrantInfo> {
        self.resolved().info().to_vec()
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

/// Teammates obey the project's rules too (a deny rule binds them as it binds the main agent).
fn team(project: &Project, main_model: &str, model: &Arc<dyn Model>, rules: &RuleBook) -> Team {
    let s = &project.settings();
    let workspace = project.workspace_root().display().to_string();
    let date = crate::prompt::today();
    Team::new(s.teammates.iter().map(|t| {
        let mut config = AgentConfig::new(
            t.name.clone(),
            t.model.clone().unwrap_or_else(|| main_model.to_owned()),
        );
        // What it may be told about: its preset and its own grants (the caller's grants
        // bound it further at run time).
        let tools: Vec<String> = t
            .preset
            .map(|p| {
                p.tools()
                    .iter()
                    .map(|n| (*n).to_owned())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
            .into_iter()
            .chain(
                t.tools
                    .iter()
                    .filter(|(_, g)| **g != Grant::Deny)
                    .map(|(n, _)| n.clone()),
            )
            .collect();
        let role = format!(
            "you are the teammate \"{}\": the main agent hands you self-contained tasks; \
             answer it with what you found or did",
            t.name
        );
        let built_in = crate::prompt::built_in(&crate::prompt::PromptFacts {
            agent: &t.name,
            role: Some(&role),
            workspace: &workspace,
            mode: s.workspace,
            tools: &tools,
            date: &date,
        });
        config.system_prompt = Some(crate::prompt::system_prompt(
            built_in,
            t.system_prompt.as_deref(),
            false,
            "",
        ));
        config.grants =
            GrantPolicy::from_overrides(t.preset, t.tools.iter().map(|(n, g)| (n.as_str(), *g)));
        config.grants.rules = rules.clone();
        if let Some(turns) = t.max_turns {
            config.max_turns = turns;
        }
        // Its own model's prices: its cost is added to the caller's with its usage.
        let provider = s
            .provider
            .unwrap_or(paddock_protocol::ProviderKind::OpenAiCompatible);
        config.pricing = crate::pricing::pricing_of(s, provider, &config.model);
        TeamMember {
            config,
            model: model.clone(),
        }
    }))
}

/// The model of a project whose tools were built only to be listed.
struct NoModel;

impl Model for NoModel {
    fn stream(&self, _request: &ModelRequest<'_>) -> ModelStream {
        let err = ModelError::new(
            ErrorKind::InvalidRequest,
            "no model is set up for this project's teammates",
        );
        futures_util::stream::iter([Err(err)]).boxed()
    }
}
