//! The conversation loop: call the model, run the tools it asks for, feed results back, until
//! it answers or an exit condition trips. The returned history never holds a tool call
//! without its result.

pub(crate) mod context_watch;
mod markup;
pub(crate) mod runner_hooks;
mod turn;

use std::sync::Arc;

use paddock_protocol::{
    AgentEvent, CheckpointInfo, ContentBlock, Cost, ExitReason, Message, Pricing, Role, SharedText,
    TokenUsage, ToolCall, ToolResult,
};

use crate::compaction::CompactionConfig;
use crate::executor::ToolExecutor;
use crate::grants::ResolvedTools;
use crate::loop_detect::{LoopConfig, LoopDetector};
use crate::model::{Model, ModelError};
use crate::recorder::WorkspaceRecorder;
use crate::tool::ToolContext;

/// Model calls per run, unless configured otherwise.
pub const DEFAULT_MAX_TURNS: u32 = 100;

/// Injected when the model seems stuck (warn policy).
pub const LOOP_WARNING: &str = "You seem to be stuck repeating the same step. Stop repeating \
     it: try a different approach, or give your final answer with what you have.";

/// Settings of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunConfig {
    pub model: String,
    pub system_prompt: Option<String>,
    /// Model calls allowed (checked before each call).
    pub max_turns: u32,
    /// The run stops once used tokens are strictly greater than this.
    pub max_token_budget: Option<u64>,
    pub loop_detection: Option<LoopConfig>,
    pub max_output_tokens: Option<u32>,
    /// The model's context window in tokens, when known.
    pub context_window: Option<u32>,
    /// How to make room in the conversation; `None`: never compact (an overflow fails).
    pub compaction: Option<CompactionConfig>,
    /// Warnings to give when the run starts.
    pub notices: Vec<String>,
    /// How the model's tokens are priced (the host decides; unknown by default).
    pub pricing: Pricing,
}

impl Default for RunConfig {
    fn default() -> Self {
        Self {
            model: String::new(),
            system_prompt: None,
            max_turns: DEFAULT_MAX_TURNS,
            max_token_budget: None,
            loop_detection: Some(LoopConfig::default()),
            max_output_tokens: None,
            context_window: None,
            compaction: Some(CompactionConfig::default()),
            notices: Vec::new(),
            pricing: Pricing::Unknown,
        }
    }
}

/// Called with the whole conversation when it grew: at every consistent point (every call
/// paired), and just before a turn's tools run, when it ends with the model's calls (a
/// process killed while they run leaves them on disk; loading pairs them with "interrupted").
/// Sessions persist what they have not written yet.
pub trait HistoryLog: Send + Sync {
    fn save(&self, messages: &[Message]);

    /// A compaction rewrote the history, which is now `len` messages long, all of them
    /// accounted for (the `compacted` event that says how went through the events first).
    fn compacted(&self, _len: usize) {}
}

/// How a run ended and what it left.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOutcome {
    pub exit: ExitReason,
    /// The last turn's text: the final answer on `end_turn` (empty, with a warning, when
    /// that reply had none; never an earlier turn's words).
    pub output: String,
    /// The whole conversation after the run, every tool call paired with its result.
    pub messages: Vec<Message>,
    /// Tokens this run used, delegated runs included.
    pub usage: TokenUsage,
    /// What they cost.
    pub cost: Cost,
    /// Model calls made.
    pub turns: u32,
    /// Set when `exit` is `Error`.
    pub error: Option<ModelError>,
    /// Where this run's prompt is in `messages` (`None`: compacted into the summary).
    pub prompt_at: Option<usize>,
    /// Compactions made during the run.
    pub compactions: u32,
}

/// What the loop needs besides the conversation.
pub struct Runner<'a> {
    pub config: &'a RunConfig,
    pub model: &'a dyn Model,
    pub tools: &'a ResolvedTools,
    pub executor: &'a ToolExecutor,
    /// Shared by every call; carries cancellation, events and approvals.
    pub ctx: ToolContext,
    pub history_log: Option<&'a dyn HistoryLog>,
    /// Records the workspace before turns that may change it (main agents only).
    pub recorder: Option<&'a dyn WorkspaceRecorder>,
    /// The person's own prompt: the prompt and stop hooks act (not on a teammate's task or
    /// a structured-output retry).
    pub from_person: bool,
}

pub(crate) struct LoopState {
    pub(crate) messages: Vec<Message>,
    pub(crate) saved: usize,
    pub(crate) usage: TokenUsage,
    pub(crate) cost: Cost,
    turns: u32,
    output: String,
    /// Messages before the prompt (where rewinding to "before the prompt" cuts); `None` once
    /// a compaction took the prompt into its summary.
    pub(crate) prompt_at: Option<usize>,
    pub(crate) compactions: u32,
    /// The workspace as the run found it, once a turn needed recording.
    first_record: Option<String>,
    /// The history's token estimate, kept up as it grows.
    pub(crate) tally: crate::compaction::HistoryTally,
    /// How the server's count of a request compares with Paddock's estimate.
    pub(crate) calibration: crate::calibration::Calibration,
    /// The model was asked once for an answer after a reply of markup alone.
    markup_nudged: bool,
}

impl Runner<'_> {
    /// Runs the loop over `messages` (which should end with the user's prompt): each turn
    /// asks the model, ends on an answer, checks for a loop, runs the calls; the exits are
    /// checked at the turn's head and after its calls.
    pub async fn run(&self, messages: Vec<Message>) -> RunOutcome {
        let mut state = self.start(messages);
        // Counted within this prompt's run: a person's new prompt is new input, and the
        // same call asked for again (say, once the user granted it) is no loop.
        let mut detector = self
            .config
            .loop_detection
            .as_ref()
            .map(|cfg| (LoopDetector::new(cfg), cfg.policy));
        let mut warned = crate::loop_detect::Warnings::default();
        let mut blocked = self.prompt_hooks(&mut state).await;
        self.save(&mut state);
        let mut stops = 0;

        let (exit, error) = loop {
            if let Some(e) = blocked.take() {
                break (ExitReason::Error, Some(e));
            }
            if self.ctx.cancel.is_cancelled() {
                break (ExitReason::Aborted, None);
            }
            if state.turns >= self.config.max_turns {
                break (ExitReason::MaxTurns, None);
            }
            state.turns += 1;
            let turn = state.turns;
            self.ctx.events.emit(AgentEvent::TurnStarted { turn });
            self.make_room_if_needed(&mut state).await;

            let response = match self.ask_model(&mut state, turn).await {
                Ok(r) => r,
                Err(interrupted) => break self.interrupted(&mut state, interrupted),
            };
            let (text, calls, before_turn) = self.take_turn(&mut state, turn, response);
            if calls.is_empty() {
                match self.answered(&mut state, &text, &mut stops).await {
                    Some(exit) => break (exit, None),
                    None => continue,
                }
            }
            let warn = match self.check_loop(&mut state, &mut detector, &mut warned, &text, &calls)
            {
                Ok(warn) => warn,
                Err(exit) => break (exit, None),
            };
            self.run_calls(&mut state, turn, before_turn, &calls, warn)
                .await;
            if self.ctx.cancel.is_cancelled() {
                break (ExitReason::Aborted, None);
            }
            if self.over_budget(&state) {
                break (ExitReason::BudgetExceeded, None);
            }
        };
        self.finish(state, exit, error).await
    }

    /// Whether any call of the batch, if it runs, may change the workspace's files.
    fn may_change_workspace(&self, calls: &[Arc<ToolCall>]) -> bool {
        self.recorder.is_some()
            && calls.iter().any(|c| {
                // Told about (granted, or allowed by a rule for some calls), and writing.
                self.tools
                    .tool(&c.name)
                    .is_some_and(|t| t.changes_workspace())
            })
    }

    /// Records the workspace before turn `turn`'s tools run. The first record of a run also
    /// marks "before the prompt" (nothing ran since the prompt arrived).
    async fn record_before(&self, state: &mut LoopState, turn: u32, before_turn: usize) {
        let Some(recorder) = self.recorder else {
            return;
        };
        let events = &self.ctx.events;
        let recorded = match recorder.record().await {
            Ok(r) => r,
            Err(e) => {
                events.emit(AgentEvent::warning(format!(
                    "the workspace could not be recorded before turn {turn} ({e}); this \
                     turn cannot be rewound"
                )));
                return;
            }
        };
        for notice in recorded.notices {
            events.emit(AgentEvent::warning(notice));
        }
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        if state.first_record.is_none() {
            state.first_record = Some(recorded.id.clone());
            events.emit(AgentEvent::CheckpointSaved(CheckpointInfo {
                checkpoint: recorded.id.clone(),
                workspace: recorded.workspace.clone(),
                turn: 0,
                messages: count(state.prompt_at.unwrap_or(0)),
            }));
        }
        events.emit(AgentEvent::CheckpointSaved(CheckpointInfo {
            checkpoint: recorded.id,
            workspace: recorded.workspace,
            turn,
            messages: count(before_turn),
        }));
    }

    /// Lists every file the run changed, from its first record to now.
    async fn report_changes(&self, state: &LoopState) {
        let (Some(recorder), Some(from)) = (self.recorder, state.first_record.as_ref()) else {
            return;
        };
        let events = &self.ctx.events;
        let recorded = recorder.record().await;
        if let Ok(to) = &recorded {
            for notice in &to.notices {
                events.emit(AgentEvent::warning(notice.clone()));
            }
        }
        let result = match recorded {
            Ok(to) if to.id == *from => return,
            Ok(to) => recorder
                .changes(from, &to.id)
                .await
                .map(|files| (to.id, files)),
            Err(e) => Err(e),
        };
        match result {
            Ok((to, files)) => events.emit(AgentEvent::RunChanges {
                from: from.clone(),
                to,
                files,
            }),
            Err(e) => events.emit(AgentEvent::warning(format!(
                "the run's changes could not be listed: {e}"
            ))),
        }
    }

    /// Counts a model call's tokens, priced at the run's model's prices.
    pub(crate) fn add_usage(&self, state: &mut LoopState, usage: TokenUsage) {
        self.add_spent(state, usage, self.config.pricing.cost(&usage));
    }

    fn add_spent(&self, state: &mut LoopState, usage: TokenUsage, cost: Cost) {
        state.usage += usage;
        state.cost += cost;
        self.ctx.events.emit(AgentEvent::Usage {
            turn: usage,
            total: state.usage,
            turn_cost: Some(cost),
            total_cost: Some(state.cost),
        });
    }

    pub(crate) fn over_budget(&self, state: &LoopState) -> bool {
        self.config
            .max_token_budget
            .is_some_and(|budget| state.usage.total() > budget)
    }

    fn budget_or(&self, state: &LoopState, exit: ExitReason) -> ExitReason {
        if self.over_budget(state) {
            ExitReason::BudgetExceeded
        } else {
            exit
        }
    }

    pub(crate) fn save(&self, state: &mut LoopState) {
        if state.saved < state.messages.len() {
            if let Some(cp) = self.history_log {
                cp.save(&state.messages);
            }
            state.saved = state.messages.len();
        }
    }
}

/// One user message with a result for each call, in call order.
fn results_message<'c>(results: impl Iterator<Item = (&'c ToolCall, SharedText, bool)>) -> Message {
    Message {
        role: Role::User,
        content: results
            .map(|(call, content, is_error)| {
                ContentBlock::ToolResult(ToolResult {
                    tool_call_id: call.id.clone(),
                    content,
                    is_error,
                })
            })
            .collect(),
    }
}
