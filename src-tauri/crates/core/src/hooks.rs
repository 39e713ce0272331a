//! Hooks: the user's own commands on the run's events (a call about to run or done, the
//! prompt, the end of the run). The core asks at those points; the host runs the commands
//! (inside the wall) and says what they decided, emitting a `Hook` event per run. What a
//! hook decides never widens the grants: the executor applies it over the gate's decision.

use async_trait::async_trait;
use paddock_protocol::{AgentEvent, ContentBlock, ErrorKind, HookPoint, Message, ToolCall};
use serde_json::Value;

use crate::model::ModelError;
use crate::runner::LoopState;
use crate::tool::{ToolContext, ToolOutput};

/// Times one run's `stop` hooks may send the agent back to work before it is let finish.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

/// A pre-call hook's word on whether the call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookVerdict {
    /// Run without asking: skips an Ask the grants would have made; never lifts a deny, a
    /// rule's deny or a ceiling (those never reach the hooks).
    Allow,
    /// Ask the person, with this reason, even where the grants allow.
    Ask(String),
    /// Do not run; the model is told this reason.
    Deny(String),
}

/// What the `pre_tool_use` hooks of one call came to, together (the strongest verdict: deny
/// over ask over allow; the last rewrite).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PreToolUse {
    pub verdict: Option<HookVerdict>,
    /// The input the call runs with instead; the gate judges it again.
    pub input: Option<Value>,
}

/// What the `user_prompt_submit` hooks said of a prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PromptVerdict {
    /// The prompt goes, with this context added for the model (if any).
    Go(Option<String>),
    /// The prompt does not go; the person is told why.
    Block(String),
}

/// The run's hooks. Every method has a "nothing to say" default, so a host implements the
/// points it has hooks for; [`NoHooks`] has none.
#[async_trait]
pub trait Hooks: Send + Sync {
    /// Whether any hook acts at `point` (the executor skips the call to it otherwise).
    fn acts_at(&self, point: HookPoint) -> bool;

    /// Before a call the gate did not refuse.
    async fn pre_tool_use(&self, _call: &ToolCall, _ctx: &ToolContext) -> PreToolUse {
        PreToolUse::default()
    }

    /// After a call ran: context the model sees after the call's result.
    async fn post_tool_use(
        &self,
        _call: &ToolCall,
        _output: &ToolOutput,
        _ctx: &ToolContext,
    ) -> Option<String> {
        None
    }

    /// Before the prompt (its words) goes to the model.
    async fn user_prompt_submit(&self, _prompt: &str, _ctx: &ToolContext) -> PromptVerdict {
        PromptVerdict::Go(None)
    }

    /// The agent answered without calls: `Some(instruction)` sends it back to work (at most
    /// [`MAX_STOP_CONTINUATIONS`] times a run).
    async fn stop(&self, _answer: &str, _ctx: &ToolContext) -> Option<String> {
        None
    }
}

/// No hooks at all.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {
    fn acts_at(&self, _point: HookPoint) -> bool {
        false
    }
}

/// Joins the verdicts of several hooks: a deny wins, then an ask, then an allow.
pub fn strongest(a: Option<HookVerdict>, b: Option<HookVerdict>) -> Option<HookVerdict> {
    fn rank(v: &HookVerdict) -> u8 {
        match v {
            HookVerdict::Allow => 0,
            HookVerdict::Ask(_) => 1,
            HookVerdict::Deny(_) => 2,
        }
    }
    match (a, b) {
        (Some(a), Some(b)) => Some(if rank(&b) > rank(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// Text a hook gives the model, marked as the hook's.
fn from_hook(kind: &str, text: &str) -> String {
    format!("<hook-{kind}>\n{text}\n</hook-{kind}>")
}

impl crate::runner::Runner<'_> {
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
        if !self.from_person
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deny_beats_an_ask_beats_an_allow() {
        let deny = || Some(HookVerdict::Deny("no".into()));
        let ask = || Some(HookVerdict::Ask("sure?".into()));
        let allow = || Some(HookVerdict::Allow);
        assert_eq!(strongest(allow(), deny()), deny());
        assert_eq!(strongest(deny(), ask()), deny());
        assert_eq!(strongest(allow(), ask()), ask());
        assert_eq!(strongest(None, allow()), allow());
        assert_eq!(strongest(ask(), None), ask());
        // The first of equals stands (its reason is the one shown).
        assert_eq!(
            strongest(deny(), Some(HookVerdict::Deny("later".into()))),
            deny()
        );
    }
}
