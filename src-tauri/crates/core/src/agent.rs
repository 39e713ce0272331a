//! An agent: a config, a model, the tools it may use, and the conversation it keeps.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::FutureExt;
use paddock_protocol::{
    AgentEvent, ApprovalDecision, Cost, ErrorKind, ExitReason, Message, Pricing, TokenUsage,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::approval::{ApprovalError, Approvals};
use crate::compaction::CompactionConfig;
use crate::events::{EventSink, NullSink};
use crate::executor::{ExecutorLimits, ToolExecutor};
use crate::grants::{GrantPolicy, ResolvedTools};
use crate::loop_detect::LoopConfig;
use crate::model::{Model, ModelError};
use crate::recorder::WorkspaceRecorder;
use crate::runner::{DEFAULT_MAX_TURNS, HistoryLog, RunConfig, RunOutcome, Runner};
use crate::structured::{self, OutputError};
use crate::tool::{ToolContext, ToolRegistry};
use crate::write_locks::WriteLocks;

/// Everything that defines one agent.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    pub name: String,
    pub model: String,
    pub system_prompt: Option<String>,
    pub grants: GrantPolicy,
    pub max_turns: u32,
    pub max_token_budget: Option<u64>,
    /// `None` turns loop detection off.
    pub loop_detection: Option<LoopConfig>,
    /// A JSON schema the final answer must match.
    pub output_schema: Option<Value>,
    pub max_output_tokens: Option<u32>,
    pub limits: ExecutorLimits,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u32>,
    /// `None`: never compact (a context overflow then fails the run).
    pub compaction: Option<CompactionConfig>,
    /// Said to the user as warnings when a run starts (an instructions file that was cut).
    pub notices: Vec<String>,
    /// How the model's tokens are priced.
    pub pricing: Pricing,
}

impl AgentConfig {
    pub fn new(name: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            model: model.into(),
            system_prompt: None,
            grants: GrantPolicy::default(),
            max_turns: DEFAULT_MAX_TURNS,
            max_token_budget: None,
            loop_detection: Some(LoopConfig::default()),
            output_schema: None,
            max_output_tokens: None,
            limits: ExecutorLimits::default(),
            context_window: None,
            compaction: Some(CompactionConfig::default()),
            notices: Vec::new(),
            pricing: Pricing::Unknown,
        }
    }
}

/// The result of one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentResult {
    pub exit: ExitReason,
    pub output: String,
    /// With an output schema: the validated JSON.
    pub structured: Option<Value>,
    /// Ended with an answer (and, with a schema, a valid one).
    pub success: bool,
    /// Where the messages this prompt added (prompt included, every call paired) start in
    /// the agent's history after `run` ([`Agent::new_messages`]). Not a copy: a long run's
    /// history would be held twice at its end.
    pub new_from: usize,
    pub usage: TokenUsage,
    /// What `usage` cost.
    pub cost: Cost,
    pub turns: u32,
    pub error: Option<ModelError>,
    /// Why structured output failed, when it did.
    pub output_error: Option<String>,
}

/// Cancels a running prompt and answers its approval requests, from any thread.
#[derive(Clone)]
pub struct AgentHandle {
    cancel: Arc<Mutex<CancellationToken>>,
    approvals: Arc<Approvals>,
}

impl AgentHandle {
    /// A handle for a run that is not this kernel's (an external agent's): cancelling trips
    /// `cancel`, approving answers `approvals`.
    pub fn new(cancel: CancellationToken, approvals: Arc<Approvals>) -> Self {
        Self {
            cancel: Arc::new(Mutex::new(cancel)),
            approvals,
        }
    }

    pub fn cancel(&self) {
        self.cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
    }

    pub fn approve(
        &self,
        request_id: &str,
        decision: ApprovalDecision,
    ) -> Result<(), ApprovalError> {
        self.approvals.resolve(request_id, decision)
    }

    pub fn approvals(&self) -> &Arc<Approvals> {
        &self.approvals
    }
}

/// An agent with its conversation.
pub struct Agent {
    config: AgentConfig,
    model: Arc<dyn Model>,
    registry: Arc<ToolRegistry>,
    events: Arc<dyn EventSink>,
    approvals: Arc<Approvals>,
    cancel: Arc<Mutex<CancellationToken>>,
    chain: Arc<[String]>,
    history_log: Option<Arc<dyn HistoryLog>>,
    writes: Arc<WriteLocks>,
    recorder: Option<Arc<dyn WorkspaceRecorder>>,
    hooks: Arc<dyn crate::tool::hooks::Hooks>,
    history: Vec<Message>,
}

impl Agent {
    pub fn new(config: AgentConfig, model: Arc<dyn Model>, registry: Arc<ToolRegistry>) -> Self {
        let chain: Arc<[String]> = Arc::from(vec![config.name.clone()]);
        Self {
            config,
            model,
            registry,
            events: Arc::new(NullSink),
            approvals: Arc::new(Approvals::default()),
            cancel: Arc::new(Mutex::new(CancellationToken::new())),
            chain,
            history_log: None,
            writes: Arc::default(),
            recorder: None,
            hooks: Arc::new(crate::tool::hooks::NoHooks),
            history: Vec::new(),
        }
    }

    pub fn with_events(mut self, events: Arc<dyn EventSink>) -> Self {
        self.events = events;
        self
    }

    pub fn with_approvals(mut self, approvals: Arc<Approvals>) -> Self {
        self.approvals = approvals;
        self
    }

    pub fn with_history_log(mut self, log: Arc<dyn HistoryLog>) -> Self {
        self.history_log = Some(log);
        self
    }

    /// Shares write locks with the other agents working in the same workspace (teammates,
    /// other sessions of the project), so their calls on one file do not race.
    pub fn with_write_locks(mut self, writes: Arc<WriteLocks>) -> Self {
        self.writes = writes;
        self
    }

    /// The final answer must be JSON matching `schema` (checked, one retry with the errors).
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.config.output_schema = Some(schema);
        self
    }

    /// Records the workspace before turns that may change it, so the run can be rewound.
    /// The user's commands on the run's events (none by default).
    pub fn with_hooks(mut self, hooks: Arc<dyn crate::tool::hooks::Hooks>) -> Self {
        self.hooks = hooks;
        self
    }

    pub fn with_recorder(mut self, recorder: Arc<dyn WorkspaceRecorder>) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// Runs under a parent's cancellation (teammates).
    pub fn with_cancel(self, cancel: CancellationToken) -> Self {
        *self.cancel.lock().unwrap_or_else(PoisonError::into_inner) = cancel;
        self
    }

    /// Places this agent in a delegation chain (the chain ends with this agent's name).
    pub fn with_chain(mut self, chain: Arc<[String]>) -> Self {
        self.chain = chain;
        self
    }

    /// Also says `notices` as warnings when the run starts.
    pub fn with_notices(mut self, notices: Vec<String>) -> Self {
        self.config.notices.extend(notices);
        self
    }

    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }

    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    pub fn history(&self) -> &[Message] {
        &self.history
    }

    /// The messages `result` (of this agent's last `run`) added to the history.
    pub fn new_messages(&self, result: &AgentResult) -> &[Message] {
        &self.history[result.new_from.min(self.history.len())..]
    }

    pub fn handle(&self) -> AgentHandle {
        AgentHandle {
            cancel: self.cancel.clone(),
            approvals: self.approvals.clone(),
        }
    }

    /// The tools this agent is told about and may run, with reasons.
    pub fn resolved_tools(&self) -> ResolvedTools {
        self.config.grants.resolve(&self.registry)
    }

    /// Runs `prompt` on top of the kept conversation and keeps the result.
    pub async fn run(&mut self, prompt: &str) -> AgentResult {
        self.run_message(Message::user_text(prompt)).await
    }

    /// As [`Self::run`], with a prompt of several blocks (the user's words, files they
    /// named, images).
    pub async fn run_message(&mut self, prompt: Message) -> AgentResult {
        let history = std::mem::take(&mut self.history);
        let (result, messages) = self.execute(history, prompt).await;
        self.history = messages;
        result
    }

    /// Runs `prompt` in a fresh conversation; the kept one is untouched (and the fresh one
    /// is dropped: only the result remains).
    pub async fn run_fresh(&self, prompt: &str) -> AgentResult {
        self.execute(Vec::new(), Message::user_text(prompt)).await.0
    }

    async fn execute(
        &self,
        mut messages: Vec<Message>,
        prompt: Message,
    ) -> (AgentResult, Vec<Message>) {
        let start = messages.len();
        messages.push(prompt);
        let cancel = self
            .cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let tools = self.resolved_tools();
        let executor = ToolExecutor::new(self.config.limits);
        let config = self.run_config();
        let runner = Runner {
            config: &config,
            model: &*self.model,
            tools: &tools,
            executor: &executor,
            ctx: ToolContext {
                call: None,
                agent: Arc::from(self.config.name.as_str()),
                chain: self.chain.clone(),
                cancel: Arc::new(cancel.clone()),
                events: self.events.clone(),
                approvals: self.approvals.clone(),
                grants: Arc::new(tools.grants()),
                writes: self.writes.clone(),
                approved: None,
                told: Arc::new(crate::tool::Told::from_history(&messages)),
                hooks: self.hooks.clone(),
            },
            history_log: self.history_log.as_deref(),
            recorder: self.recorder.as_deref(),
            from_person: self.chain.len() == 1,
        };

        // A bug that panics inside the loop (a provider's decoder, the runner) ends this
        // run with its message in the events (and so in the session and the log), never the
        // process: the conversation goes back to where the prompt was added.
        let kept = messages.clone();
        let outcome = match std::panic::AssertUnwindSafe(runner.run(messages))
            .catch_unwind()
            .await
        {
            Ok(outcome) => outcome,
            Err(panic) => self.panicked(&*panic, kept),
        };
        let (outcome, structured_value, output_error) = self.structured(&runner, outcome).await;
        if outcome.exit == ExitReason::Aborted {
            // A fresh token for the next prompt; the handle follows it.
            *self.cancel.lock().unwrap_or_else(PoisonError::into_inner) = CancellationToken::new();
        }
        // After a compaction the prompt moved (or went into the summary: then all is new).
        let new_from = if outcome.compactions == 0 {
            start
        } else {
            outcome.prompt_at.unwrap_or(0)
        };
        let success = outcome.exit == ExitReason::EndTurn
            && (self.config.output_schema.is_none() || structured_value.is_some());
        let result = AgentResult {
            exit: outcome.exit,
            output: outcome.output,
            structured: structured_value,
            success,
            new_from: new_from.min(outcome.messages.len()),
            usage: outcome.usage,
            cost: outcome.cost,
            turns: outcome.turns,
            error: outcome.error,
            output_error,
        };
        (result, outcome.messages)
    }

    /// The outcome of a run whose loop panicked: an error naming the panic, said as an
    /// event; the conversation as it was with the prompt.
    fn panicked(&self, panic: &(dyn std::any::Any + Send), messages: Vec<Message>) -> RunOutcome {
        let message = format!(
            "internal error (a bug in Paddock): {}; the run stopped",
            crate::executor::panic_message(panic)
        );
        tracing::error!("{message}");
        self.events.emit(AgentEvent::Error {
            kind: ErrorKind::Other,
            message: message.clone(),
        });
        RunOutcome {
            exit: ExitReason::Error,
            output: String::new(),
            prompt_at: messages.len().checked_sub(1),
            messages,
            usage: TokenUsage::default(),
            cost: Cost::default(),
            turns: 0,
            error: Some(ModelError::new(ErrorKind::Other, message)),
            compactions: 0,
        }
    }

    /// The run's settings: the agent's, with the structured-output instruction added to the
    /// system prompt when an output schema is set.
    fn run_config(&self) -> RunConfig {
        let mut system = self.config.system_prompt.clone();
        if let Some(schema) = &self.config.output_schema {
            let instruction = structured::instruction(schema);
            system = Some(match system {
                Some(s) if !s.is_empty() => format!("{s}\n\n{instruction}"),
                _ => instruction,
            });
        }
        RunConfig {
            model: self.config.model.clone(),
            system_prompt: system,
            max_turns: self.config.max_turns,
            max_token_budget: self.config.max_token_budget,
            loop_detection: self.config.loop_detection,
            max_output_tokens: self.config.max_output_tokens,
            context_window: self.config.context_window,
            compaction: self.config.compaction,
            notices: self.config.notices.clone(),
            pricing: self.config.pricing.clone(),
        }
    }

    /// The answer read against the output schema, when one is set: one retry with the
    /// errors fed back; what did not match is warned about.
    async fn structured(
        &self,
        runner: &Runner<'_>,
        mut outcome: crate::runner::RunOutcome,
    ) -> (crate::runner::RunOutcome, Option<Value>, Option<String>) {
        let mut structured_value = None;
        let mut output_error = None;
        if let (Some(schema), ExitReason::EndTurn) = (&self.config.output_schema, outcome.exit) {
            match structured::parse_and_validate(&outcome.output, schema) {
                Ok(v) => structured_value = Some(v),
                Err(OutputError::BadSchema(e)) => output_error = Some(e),
                Err(first) => {
                    // One retry with the errors fed back.
                    let mut retry_msgs = outcome.messages;
                    retry_msgs.push(Message::user_text(structured::retry_message(&first)));
                    let retry = Runner {
                        from_person: false,
                        ctx: runner.ctx.clone(),
                        ..*runner
                    };
                    let retry = retry.run(retry_msgs).await;
                    let (usage, turns) = (outcome.usage + retry.usage, outcome.turns + retry.turns);
                    let cost = outcome.cost + retry.cost;
                    outcome = retry;
                    outcome.usage = usage;
                    outcome.cost = cost;
                    outcome.turns = turns;
                    if outcome.exit == ExitReason::EndTurn {
                        match structured::parse_and_validate(&outcome.output, schema) {
                            Ok(v) => structured_value = Some(v),
                            Err(e) => output_error = Some(e.to_string()),
                        }
                    } else {
                        output_error = Some(first.to_string());
                    }
                }
            }
            if let Some(e) = &output_error {
                self.events.emit(AgentEvent::warning(format!(
                    "structured output failed: {e}"
                )));
            }
        }
        (outcome, structured_value, output_error)
    }
}
