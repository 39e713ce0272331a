//! Hooks: the user's own commands on the run's events (a call about to run or done, the
//! prompt, the end of the run). The core asks at those points; the host runs the commands
//! (inside the wall) and says what they decided, emitting a `Hook` event per run. What a
//! hook decides never widens the grants: the executor applies it over the gate's decision.

use async_trait::async_trait;
use paddock_protocol::{HookPoint, ToolCall};
use serde_json::Value;

use super::{ToolContext, ToolOutput};

/// Times one run's `stop` hooks may send the agent back to work before it is let finish.
pub const MAX_STOP_CONTINUATIONS: u32 = 3;

/// A pre-call hook's word on whether the call runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookVerdict {
    /// Run without asking: skips the Ask of a tool whose grant is Ask; an ask rule still
    /// asks, and a deny, a rule's deny or a ceiling never reach the hooks.
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
    /// [`MAX_STOP_CONTINUATIONS`] times a run). A teammate's (`ctx.chain` longer than one)
    /// is its own stop.
    async fn stop(&self, _answer: &str, _ctx: &ToolContext) -> Option<String> {
        None
    }

    /// Before the conversation is compacted (`auto`: the context filled up; else the person
    /// asked). Nothing to decide: a hook may only save or warn.
    async fn pre_compact(&self, _auto: bool, _ctx: &ToolContext) {}
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
