//! Where the runner asks the prompt and stop hooks (see `hooks`).

use paddock_protocol::{AgentEvent, ContentBlock, ErrorKind, HookPoint, Message};

use crate::model::ModelError;
use crate::runner::{LoopState, Runner};
use crate::tool::hooks::{MAX_STOP_CONTINUATIONS, PromptVerdict};

/// Text a hook gives the model, marked as the hook's.
fn from_hook(kind: &str, text: &str) -> String {
    format!("<hook-{kind}>\n{text}\n</hook-{kind}>")
}

impl Runner<'_> {
    /// The `user_prompt_submit` hooks, before the prompt is kept: context they add goes
    /// with the prompt; a block takes the prompt out (not sent, not kept) and ends the run
    /// with the hook's reason.
    pub(crate) async fn prompt_hooks(&self, state: &mut LoopState) -> Option<ModelError> {
        if !self.from_person || !self.ctx.hooks.acts_at(HookPoint::UserPromptSubmit) {
            return None;
        }
        let words = state.messages.last()?.text();
        match self.ctx.hooks.user_prompt_submit(&words, &self.ctx).await {
            PromptVerdict::Go(None) => None,
            PromptVerdict::Go(Some(context)) => {
                if let Some(prompt) = state.messages.last_mut() {
                    prompt.content.push(ContentBlock::Text {
                        text: from_hook("context", &context),
                    });
                }
                None
            }
            PromptVerdict::Block(reason) => {
                state.messages.pop();
                let message = format!("a hook blocked the prompt: {reason}");
                self.ctx.events.emit(AgentEvent::Error {
                    kind: ErrorKind::InvalidRequest,
                    message: message.clone(),
                });
                Some(ModelError::new(ErrorKind::InvalidRequest, message))
            }
        }
    }

    /// The `stop` hooks, when the agent answered without calls: the message that sends it
    /// back to work, if one asks and the run may go on (not past
    /// [`MAX_STOP_CONTINUATIONS`], the budget or a cancellation).
    pub(crate) async fn stop_hooks(
        &self,
        state: &LoopState,
        answer: &str,
        stops: &mut u32,
    ) -> Option<Message> {
        // The person's agent, or a teammate (its own stop: `subagent_stop` to the host).
        let stops_here = self.from_person || self.ctx.chain.len() > 1;
        if !stops_here
            || *stops >= MAX_STOP_CONTINUATIONS
            || !self.ctx.hooks.acts_at(HookPoint::Stop)
            || self.ctx.cancel.is_cancelled()
            || self.over_budget(state)
        {
            return None;
        }
        let instruction = self.ctx.hooks.stop(answer, &self.ctx).await?;
        *stops += 1;
        Some(Message::user_text(from_hook("feedback", &instruction)))
    }
}
