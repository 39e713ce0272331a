//! The runner's side of compaction: say how full the context is before each model call,
//! compact on the way past the threshold, and on a provider's overflow error.

use paddock_protocol::{AgentEvent, CompactionReason, ContextInfo};

use crate::compaction::{self, CompactError};
use crate::runner::{LoopState, Runner};

impl Runner<'_> {
    /// Emits the context's size and compacts first when it is past the threshold.
    pub(crate) async fn make_room_if_needed(&self, state: &mut LoopState) {
        let info = self.context_now(state);
        self.ctx.events.emit(AgentEvent::Context(info));
        let (Some(config), Some(window)) = (self.config.compaction, self.config.context_window)
        else {
            return;
        };
        let threshold = u64::from(window) * u64::from(config.threshold_percent) / 100;
        if !config.auto || u64::from(info.used) <= threshold {
            return;
        }
        if self.compact(state, CompactionReason::Threshold).await {
            self.ctx
                .events
                .emit(AgentEvent::Context(self.context_now(state)));
        } else if info.used > window {
            // Nothing to summarize and still too big: one message (a file read, a
            // command's output) fills the window. The server will refuse it.
            self.ctx.events.emit(AgentEvent::warning(format!(
                "the request (about {} tokens) is larger than the model's context window \
                 ({window} tokens) and cannot be compacted; the model needs a larger context \
                 (llama-server -c, Ollama num_ctx, LM Studio's context length; then \
                 \"contextWindow\" if Paddock cannot learn it)",
                info.used
            )));
        }
    }

    /// The request's size now, in the server's terms as far as they are known.
    fn context_now(&self, state: &mut LoopState) -> ContextInfo {
        let raw = self.raw_context(state);
        state.calibration.info(raw)
    }

    fn raw_context(&self, state: &mut LoopState) -> ContextInfo {
        let history = state.tally.tokens(&state.messages);
        compaction::context_with(
            self.config.system_prompt.as_deref(),
            self.tools.specs(),
            history,
            self.config.context_window,
        )
    }

    /// Notes the estimate of the request about to be sent, for [`Calibration::learn`](crate::calibration::Calibration::learn).
    pub(crate) fn note_estimate(&self, state: &mut LoopState) {
        state.calibration.sent = self.raw_context(state).used;
    }

    /// Replaces the start of the history with a summary; false (with a warning) when it
    /// could not be done.
    pub(crate) async fn compact(&self, state: &mut LoopState, reason: CompactionReason) -> bool {
        if self.config.compaction.is_none() {
            return false;
        }
        // Everything so far is recorded before the history is rewritten.
        self.save(state);
        if self
            .ctx
            .hooks
            .acts_at(paddock_protocol::HookPoint::PreCompact)
        {
            let auto = !matches!(reason, CompactionReason::Asked);
            self.ctx.hooks.pre_compact(auto, &self.ctx).await;
        }
        let result = compaction::compact(
            self.model,
            &self.config.model,
            &state.messages,
            self.config.context_window,
            reason,
            &self.ctx.cancel,
        )
        .await;
        let events = &self.ctx.events;
        match result {
            Ok(done) => {
                let replaced = done.info.replaced as usize;
                let added = done.history.len() + replaced - state.messages.len();
                state.prompt_at = state
                    .prompt_at
                    .filter(|&p| p >= replaced)
                    .map(|p| p - replaced + added);
                state.messages = done.history;
                state.tally = compaction::HistoryTally::default();
                state.compactions += 1;
                events.emit(AgentEvent::Compacted(done.info));
                if let Some(log) = self.history_log {
                    log.compacted(state.messages.len());
                }
                state.saved = state.messages.len();
                if !done.usage.is_zero() {
                    self.add_usage(state, done.usage);
                }
                true
            }
            Err(CompactError::Cancelled) => false,
            Err(e) => {
                if let CompactError::NoGain { usage, .. } = &e {
                    self.add_usage(state, *usage);
                }
                events.emit(AgentEvent::warning(format!(
                    "the conversation could not be compacted: {e}"
                )));
                false
            }
        }
    }
}
