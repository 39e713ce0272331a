//! `delegate_to_agent`: a synchronous hand-off to a named teammate.

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

use async_trait::async_trait;
use paddock_protocol::ExitReason;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Semaphore;

use paddock_core::events::NestedSink;
use paddock_core::tool::{SUMMARY_CHARS, one_line, summarize_input};
use paddock_core::{
    Agent, AgentConfig, Model, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool,
};

/// Deepest delegation chain, unless configured otherwise (the root agent is depth 0).
pub const DEFAULT_MAX_DEPTH: u32 = 3;
/// Teammate runs at once across the whole team.
pub const DEFAULT_SLOTS: usize = 4;
/// A teammate's whole run; its own max_turns usually ends it far sooner.
pub const DELEGATION_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// A teammate: its config and the model it talks to.
#[derive(Clone)]
pub struct TeamMember {
    pub config: AgentConfig,
    pub model: Arc<dyn Model>,
}

/// The named agents that can receive delegated work.
pub struct Team {
    members: BTreeMap<String, TeamMember>,
    max_depth: u32,
    slots: Arc<Semaphore>,
    total_slots: usize,
}

impl Team {
    pub fn new(members: impl IntoIterator<Item = TeamMember>) -> Self {
        Self {
            members: members
                .into_iter()
                .map(|m| (m.config.name.clone(), m))
                .collect(),
            max_depth: DEFAULT_MAX_DEPTH,
            slots: Arc::new(Semaphore::new(DEFAULT_SLOTS)),
            total_slots: DEFAULT_SLOTS,
        }
    }

    pub fn with_max_depth(mut self, depth: u32) -> Self {
        self.max_depth = depth;
        self
    }

    pub fn with_slots(mut self, slots: usize) -> Self {
        self.slots = Arc::new(Semaphore::new(slots));
        self.total_slots = slots;
        self
    }

    pub fn roster(&self) -> Vec<&str> {
        self.members.keys().map(String::as_str).collect()
    }
}

/// Hand a task to a named teammate and wait for its final answer. The teammate starts with
/// no memory of this conversation: put everything it needs in the task.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct DelegateInput {
    /// Name of the teammate to hand the task to.
    pub agent: String,
    /// The complete task description for the teammate.
    pub task: String,
}

/// Hands tasks to the team. Teammates use the same tools as the caller: the registry this
/// tool is registered in, held weakly since that registry holds the tool.
pub struct DelegateTool {
    team: Arc<Team>,
    registry: Weak<ToolRegistry>,
}

impl DelegateTool {
    pub fn new(team: Arc<Team>, registry: Weak<ToolRegistry>) -> Self {
        Self { team, registry }
    }
}

#[async_trait]
impl TypedTool for DelegateTool {
    type Input = DelegateInput;
    const NAME: &'static str = "delegate_to_agent";

    /// Handing work on changes nothing by itself: the teammate's own tools are bounded by
    /// the caller's grants.
    fn mutates(&self) -> bool {
        false
    }

    /// A teammate may change files with its own tools.
    fn changes_workspace(&self) -> bool {
        true
    }

    fn summary(&self, input: &Value) -> String {
        let field = |k: &str| input.get(k).and_then(Value::as_str);
        match (field("agent"), field("task")) {
            (Some(agent), Some(task)) => one_line(&format!("{agent}: {task}"), SUMMARY_CHARS),
            _ => summarize_input(input),
        }
    }

    fn timeout(&self) -> Option<Duration> {
        Some(DELEGATION_TIMEOUT)
    }

    async fn run(&self, input: DelegateInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let team = &self.team;
        let target = input.agent.trim();
        if *target == *ctx.agent {
            return Err(ToolError::Failed(format!(
                "'{target}' cannot delegate to itself; do the task yourself or pick a teammate"
            )));
        }
        let Some(member) = team.members.get(target) else {
            return Err(ToolError::Failed(format!(
                "no teammate named '{target}'. Teammates: {}",
                list_or_none(&team.roster())
            )));
        };
        if ctx.chain.iter().any(|n| n == target) {
            let mut chain: Vec<&str> = ctx.chain.iter().map(String::as_str).collect();
            chain.push(target);
            return Err(ToolError::Failed(format!(
                "delegating to '{target}' would form a cycle: {}",
                chain.join(" -> ")
            )));
        }
        let depth = u32::try_from(ctx.chain.len().saturating_sub(1)).unwrap_or(u32::MAX);
        if depth >= team.max_depth {
            return Err(ToolError::Failed(format!(
                "delegation depth limit reached ({depth} of {}): finish the task yourself",
                team.max_depth
            )));
        }
        let Ok(_slot) = team.slots.clone().try_acquire_owned() else {
            return Err(ToolError::Failed(format!(
                "no free teammate slot: all {} are busy; try again later or do it yourself",
                team.total_slots
            )));
        };

        let mut chain: Vec<String> = ctx.chain.to_vec();
        chain.push(target.to_owned());
        let events = Arc::new(NestedSink {
            parent: ctx.events.clone(),
            agent: target.to_owned(),
            depth: depth + 1,
            call_id: ctx.call_id().to_owned(),
        });
        let Some(registry) = self.registry.upgrade() else {
            return Err(ToolError::Failed(
                "the team's tools are gone (the project was closed)".to_owned(),
            ));
        };
        // The teammate gets no more than its caller: its own grants within the caller's.
        let mut config = member.config.clone();
        config.grants.limit = Some(ctx.grants.clone());
        let teammate = Agent::new(config, member.model.clone(), registry)
            .with_events(events)
            .with_approvals(ctx.approvals.clone())
            .with_write_locks(ctx.writes.clone())
            // The caller's hooks judge its teammate's calls too.
            .with_hooks(ctx.hooks.clone())
            .with_cancel(ctx.cancel.child_token())
            .with_chain(Arc::from(chain));
        let result = teammate.run_fresh(&input.task).await;
        let output = if result.exit == ExitReason::EndTurn {
            ToolOutput::ok(result.output)
        } else {
            let detail = match &result.error {
                Some(e) => format!(": {e}"),
                None => String::new(),
            };
            ToolOutput::error(format!(
                "teammate '{target}' stopped early ({}{detail}). Its last text:\n{}",
                result.exit.as_str(),
                result.output
            ))
        };
        Ok(output.with_usage(result.usage).with_cost(result.cost))
    }
}

fn list_or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}
