//! The phases of one run and of each of its turns, in the order `Runner::run` goes through
//! them: start, ask the model (one compaction on an overflow), take its turn, end on an
//! answer (unless a stop hook sends it on), check for a loop, run the calls, finish.

use std::sync::Arc;

use paddock_protocol::{
    AgentEvent, CompactionReason, ContentBlock, Cost, ErrorKind, ExitReason, LoopAction, Message,
    Pricing, SharedText, StopReason, TokenUsage, ToolCall,
};

use super::{LOOP_WARNING, LoopState, RunOutcome, Runner, results_message};
use crate::loop_detect::{LoopDetector, LoopPolicy};
use crate::model::{ModelError, ModelRequest};
use crate::response::{Interrupted, Response, collect};

impl Runner<'_> {
    /// Says the run started (with the configuration's notices) and sets up its state.
    pub(super) fn start(&self, messages: Vec<Message>) -> LoopState {
        let events = &self.ctx.events;
        events.emit(AgentEvent::RunStarted {
            agent: self.ctx.agent.to_string(),
            model: self.config.model.clone(),
            max_turns: self.config.max_turns,
            pricing: Some(self.config.pricing.clone()),
        });
        for warning in self.config.notices.iter().chain(self.tools.warnings()) {
            events.emit(AgentEvent::warning(warning.clone()));
        }
        let prompt_at = Some(messages.len().saturating_sub(1));
        LoopState {
            messages,
            saved: 0,
            usage: TokenUsage::default(),
            cost: Cost::NONE,
            turns: 0,
            output: String::new(),
            prompt_at,
            compactions: 0,
            first_record: None,
            markup_nudged: false,
            tally: crate::compaction::HistoryTally::default(),
            calibration: crate::calibration::Calibration::default(),
        }
    }

    /// One model call, streamed; a window passed after all gets one compaction, then the
    /// same call again.
    pub(super) async fn ask_model(
        &self,
        state: &mut LoopState,
        turn: u32,
    ) -> Result<Response, Interrupted> {
        let mut overflowed = false;
        loop {
            self.note_estimate(state);
            let stream = self.model.stream(&ModelRequest {
                model: &self.config.model,
                system: self.config.system_prompt.as_deref(),
                messages: &state.messages,
                tools: self.tools.specs(),
                max_output_tokens: self.config.max_output_tokens,
            });
            match collect(stream, &*self.ctx.events, &self.ctx.cancel, turn).await {
                Err(Interrupted::Failed(err, partial))
                    if err.kind == ErrorKind::ContextTooLong
                        && !overflowed
                        && partial.blocks.is_empty() =>
                {
                    overflowed = true;
                    self.add_usage(state, partial.usage);
                    if !self.compact(state, CompactionReason::Overflow).await {
                        return Err(Interrupted::Failed(err, partial));
                    }
                }
                other => return other,
            }
        }
    }

    /// A model call that was cancelled or failed: what it streamed is kept, and the run ends.
    pub(super) fn interrupted(
        &self,
        state: &mut LoopState,
        interrupted: Interrupted,
    ) -> (ExitReason, Option<ModelError>) {
        match interrupted {
            Interrupted::Aborted(partial) => {
                self.add_usage(state, partial.usage);
                if let Some(msg) = partial.into_partial_message() {
                    state.output = msg.text();
                    state.messages.push(msg);
                }
                (ExitReason::Aborted, None)
            }
            Interrupted::Failed(err, partial) => {
                self.add_usage(state, partial.usage);
                if let Some(msg) = partial.into_partial_message() {
                    state.messages.push(msg);
                }
                self.ctx.events.emit(AgentEvent::Error {
                    kind: err.kind,
                    message: err.message.clone(),
                });
                (ExitReason::Error, Some(err))
            }
        }
    }

    /// The model's turn into the history: its words (this turn's answer, never an earlier
    /// turn's), its calls, and where the history stood before it.
    pub(super) fn take_turn(
        &self,
        state: &mut LoopState,
        turn: u32,
        response: Response,
    ) -> (String, Vec<Arc<ToolCall>>, usize) {
        self.add_usage(state, response.usage);
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
        self.ctx.events.emit(AgentEvent::TurnFinished {
            turn,
            stop_reason: stop,
        });
        if stop == StopReason::MaxTokens {
            self.ctx.events.emit(AgentEvent::warning(
                "the model reached its output token limit; the answer may be cut off",
            ));
        }
        let before_turn = state.messages.len();
        state.messages.push(message);
        // A turn of calls followed by an empty one ends with no answer, and says so.
        state.output = text.clone();
        (text, calls, before_turn)
    }

    /// A turn without calls: the answer, unless a stop hook sends the agent on (`None`).
    pub(super) async fn answered(
        &self,
        state: &mut LoopState,
        text: &str,
        stops: &mut u32,
    ) -> Option<ExitReason> {
        let offered: Vec<&str> = self.tools.specs().iter().map(|s| s.name.as_str()).collect();
        if super::markup::only_markup(text, &offered) {
            if !state.markup_nudged {
                state.markup_nudged = true;
                self.ctx.events.emit(AgentEvent::warning(
                    "the model replied with markup only (tags or the tool list); it is asked once \
                     more for an answer",
                ));
                state
                    .messages
                    .push(Message::user_text(super::markup::NUDGE));
                self.save(state);
                return None;
            }
            self.ctx.events.emit(AgentEvent::warning(
                "the model replied with markup only again: the run ends without an answer",
            ));
            state.output.clear();
        } else if text.trim().is_empty() {
            self.ctx.events.emit(AgentEvent::warning(
                "the model ended its turn without an answer (its last reply had no text)",
            ));
        }
        if let Some(go_on) = self.stop_hooks(state, text, stops).await {
            state.messages.push(go_on);
            self.save(state);
            return None;
        }
        self.save(state);
        Some(self.budget_or(state, ExitReason::EndTurn))
    }

    /// The loop check before anything runs: `Err` ends the run (each call answered "not
    /// run"), `Ok(true)` adds the warning to this turn's results.
    pub(super) fn check_loop(
        &self,
        state: &mut LoopState,
        detector: &mut Option<(LoopDetector, LoopPolicy)>,
        warned: &mut crate::loop_detect::Warnings,
        text: &str,
        calls: &[Arc<ToolCall>],
    ) -> Result<bool, ExitReason> {
        let Some((detector, policy)) = detector.as_mut() else {
            return Ok(false);
        };
        let Some(d) = detector.record_turn(text, calls) else {
            warned.clean();
            return Ok(false);
        };
        let terminate = warned.ends(&d) || *policy == LoopPolicy::Terminate;
        self.ctx.events.emit(AgentEvent::LoopDetected {
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
            let results = results_message(calls.iter().map(|c| (&**c, skipped.clone(), true)));
            state.messages.push(results);
            self.save(state);
            return Err(ExitReason::LoopDetected);
        }
        Ok(true)
    }

    /// Runs the turn's calls (the workspace recorded first when they may change it, the
    /// history saved before anything runs) and adds one message with every result.
    pub(super) async fn run_calls(
        &self,
        state: &mut LoopState,
        turn: u32,
        before_turn: usize,
        calls: &[Arc<ToolCall>],
        warn: bool,
    ) {
        if self.may_change_workspace(calls) {
            self.record_before(state, turn, before_turn).await;
        }
        // On disk before anything runs: the calls and the checkpoint survive a kill.
        self.save(state);
        let outcomes = self
            .executor
            .execute_batch(calls, self.tools, &self.ctx)
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
        if warn {
            results.content.push(ContentBlock::Text {
                text: LOOP_WARNING.to_owned(),
            });
        }
        state.messages.push(results);
        if !delegated.is_zero() {
            self.add_spent(state, delegated, delegated_cost);
        }
        self.save(state);
    }

    /// Saves the history, reports what changed and says how the run ended.
    pub(super) async fn finish(
        &self,
        mut state: LoopState,
        exit: ExitReason,
        error: Option<ModelError>,
    ) -> RunOutcome {
        self.save(&mut state);
        self.report_changes(&state).await;
        self.ctx.events.emit(AgentEvent::RunFinished {
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
}
