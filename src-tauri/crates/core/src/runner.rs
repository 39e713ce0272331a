//! The conversation loop: call the model, run the tools it asks for, feed results back, until
//! it answers or an exit condition trips. The returned history never holds a tool call
//! without its result.

pub(crate) mod context_watch;
pub(crate) mod runner_hooks;

use std::sync::Arc;

use paddock_protocol::{
    AgentEvent, CheckpointInfo, CompactionReason, ContentBlock, Cost, ErrorKind, ExitReason,
    LoopAction, Message, Pricing, Role, SharedText, StopReason, TokenUsage, ToolCall, ToolResult,
};

use crate::compaction::CompactionConfig;
use crate::executor::ToolExecutor;
use crate::grants::ResolvedTools;
use crate::loop_detect::{LoopConfig, LoopDetector, LoopPolicy};
use crate::model::{Model, ModelError, ModelRequest};
use crate::recorder::WorkspaceRecorder;
use crate::response::{Interrupted, collect};
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
}

impl Runner<'_> {
    /// Runs the loop over `messages` (which should end with the user's prompt).
    #[expect(
        clippy::too_many_lines,
        reason = "issue 51: to be split into named phases"
    )]
    pub async fn run(&self, messages: Vec<Message>) -> RunOutcome {
        let events = self.ctx.events.clone();
        events.emit(AgentEvent::RunStarted {
            agent: self.ctx.agent.to_string(),
            model: self.config.model.clone(),
            max_turns: self.config.max_turns,
            pricing: Some(self.config.pricing.clone()),
        });
        for warning in self.config.notices.iter().chain(self.tools.warnings()) {
            events.emit(AgentEvent::warning(warning.clone()));
        }
        // Counted within this prompt's run: a person's new prompt is new input, and the
        // same call asked for again (say, once the user granted it) is no loop.
        let mut detector = self
            .config
            .loop_detection
            .as_ref()
            .map(|cfg| (LoopDetector::new(cfg), cfg.policy));
        let mut warned = false;
        let prompt_at = Some(messages.len().saturating_sub(1));
        let mut state = LoopState {
            messages,
            saved: 0,
            usage: TokenUsage::default(),
            cost: Cost::NONE,
            turns: 0,
            output: String::new(),
            prompt_at,
            compactions: 0,
            first_record: None,
            tally: crate::compaction::HistoryTally::default(),
            calibration: crate::calibration::Calibration::default(),
        };
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
            events.emit(AgentEvent::TurnStarted { turn });
            self.make_room_if_needed(&mut state).await;

            let mut overflowed = false;
            let collected = loop {
                self.note_estimate(&mut state);
                let stream = self.model.stream(&ModelRequest {
                    model: &self.config.model,
                    system: self.config.system_prompt.as_deref(),
                    messages: &state.messages,
                    tools: self.tools.specs(),
                    max_output_tokens: self.config.max_output_tokens,
                });
                match collect(stream, &*events, &self.ctx.cancel, turn).await {
                    // The window was passed after all: one compaction, then the same call again.
                    Err(Interrupted::Failed(err, partial))
                        if err.kind == ErrorKind::ContextTooLong
                            && !overflowed
                            && partial.blocks.is_empty() =>
                    {
                        overflowed = true;
                        self.add_usage(&mut state, partial.usage);
                        if !self.compact(&mut state, CompactionReason::Overflow).await {
                            break Err(Interrupted::Failed(err, partial));
                        }
                    }
                    other => break other,
                }
            };
            let response = match collected {
                Ok(r) => r,
                Err(Interrupted::Aborted(partial)) => {
                    self.add_usage(&mut state, partial.usage);
                    if let Some(msg) = partial.into_partial_message() {
                        state.output = msg.text();
                        state.messages.push(msg);
                    }
                    break (ExitReason::Aborted, None);
                }
                Err(Interrupted::Failed(err, partial)) => {
                    self.add_usage(&mut state, partial.usage);
                    if let Some(msg) = partial.into_partial_message() {
                        state.messages.push(msg);
                    }
                    events.emit(AgentEvent::Error {
                        kind: err.kind,
                        message: err.message.clone(),
                    });
                    break (ExitReason::Error, Some(err));
                }
            };
            self.add_usage(&mut state, response.usage);
            state.calibration.learn(response.usage.input_tokens);
            let text = response.text();
            let model_stop = response.stop;
            // The calls are shared by their message in the history and the executor.
            let message = response.into_message();
            let calls: Vec<Arc<ToolCall>> = message.shared_tool_calls().cloned().collect();
            let stop = if calls.is_empty() {
                model_stop.unwrap_or(StopReason::EndTurn)
            } else {
                StopReason::ToolUse
            };
            events.emit(AgentEvent::TurnFinished {
                turn,
                stop_reason: stop,
            });
            if stop == StopReason::MaxTokens {
                events.emit(AgentEvent::warning(
                    "the model reached its output token limit; the answer may be cut off",
                ));
            }
            let before_turn = state.messages.len();
            state.messages.push(message);
            // The answer is this turn's words, never an earlier turn's: a turn of calls
            // followed by an empty one ends with no answer, and says so.
            state.output = text.clone();

            if calls.is_empty() {
                if text.trim().is_empty() {
                    events.emit(AgentEvent::warning(
                        "the model ended its turn without an answer (its last reply had no \
                         text)",
                    ));
                }
                if let Some(go_on) = self.stop_hooks(&state, &text, &mut stops).await {
                    state.messages.push(go_on);
                    self.save(&mut state);
                    continue;
                }
                self.save(&mut state);
                break (self.budget_or(&state, ExitReason::EndTurn), None);
            }

            // Loop check before running anything; a terminated turn still gets its results.
            let mut inject_warning = false;
            if let Some((detector, policy)) = detector.as_mut() {
                match detector.record_turn(&text, &calls) {
                    Some(d) => {
                        let terminate = *policy == LoopPolicy::Terminate || warned;
                        events.emit(AgentEvent::LoopDetected {
                            kind: d.kind,
                            repetitions: d.repetitions,
                            action: if terminate {
                                LoopAction::Terminated
                            } else {
                                LoopAction::Warned
                            },
                            detail: d.detail.clone(),
                        });
                        if terminate {
                            let skipped = SharedText::from(format!(
                                "Not run: the run was stopped because {}.",
                                d.detail
                            ));
                            let results = results_message(
                                calls.iter().map(|c| (&**c, skipped.clone(), true)),
                            );
                            state.messages.push(results);
                            self.save(&mut state);
                            break (ExitReason::LoopDetected, None);
                        }
                        warned = true;
                        inject_warning = true;
                    }
                    None => warned = false,
                }
            }

            if self.may_change_workspace(&calls) {
                self.record_before(&mut state, turn, before_turn).await;
            }
            // On disk before anything runs: the calls and the checkpoint survive a kill.
            self.save(&mut state);
            let outcomes = self
                .executor
                .execute_batch(&calls, self.tools, &self.ctx)
                .await;
            let (mut delegated, mut delegated_cost) = (TokenUsage::default(), Cost::NONE);
            let mut images = Vec::new();
            // The outputs move into the history, sharing their text with the events.
            let mut results = results_message(calls.iter().zip(outcomes).map(|(c, mut o)| {
                // Shown after the results, each naming the call it answers.
                let shown = std::mem::take(&mut o.output.images);
                images.extend(shown.into_iter().map(|mut image| {
                    image.tool_call_id = Some(c.id.clone());
                    ContentBlock::Image(image)
                }));
                if let Some(u) = o.output.usage {
                    delegated += u;
                    // Priced by the teammate's own model; unknown if it did not say.
                    delegated_cost += o.output.cost.unwrap_or(Pricing::Unknown.cost(&u));
                }
                let is_error = o.output.is_error();
                (&**c, o.output.content, is_error)
            }));
            results.content.extend(images);
            if inject_warning {
                results.content.push(ContentBlock::Text {
                    text: LOOP_WARNING.to_owned(),
                });
            }
            state.messages.push(results);
            if !delegated.is_zero() {
                self.add_spent(&mut state, delegated, delegated_cost);
            }
            self.save(&mut state);

            if self.ctx.cancel.is_cancelled() {
                break (ExitReason::Aborted, None);
            }
            if self.over_budget(&state) {
                break (ExitReason::BudgetExceeded, None);
            }
        };

        self.save(&mut state);
        self.report_changes(&state).await;
        events.emit(AgentEvent::RunFinished {
            exit,
            turns: state.turns,
            usage: state.usage,
            cost: Some(state.cost),
        });
        RunOutcome {
            exit,
            output: state.output,
            messages: state.messages,
            usage: state.usage,
            cost: state.cost,
            turns: state.turns,
            error,
            prompt_at: state.prompt_at,
            compactions: state.compactions,
        }
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
