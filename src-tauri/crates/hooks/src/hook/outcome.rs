//! A hook's run turned into what the host does next, per event, as Claude Code documents it
//! (read 2026-12-06, <https://docs.anthropic.com/de/docs/claude-code/hooks>, "Hook-Ausgabe"):
//!
//! - exit 0: success. Stdout that is a JSON object is the hook's answer (see `output`); plain
//!   stdout is context for the model on `user_prompt_submit` and `session_start` only (on
//!   the other events Claude Code shows it in its transcript, and Paddock passes it nowhere).
//! - exit 2: a blocking error, stderr the reason (stdout is not read). `pre_tool_use`: the
//!   call is denied and the model is told why. `post_tool_use`: the call already ran; the
//!   model is told. `user_prompt_submit`: the prompt is not processed; the person is told.
//!   `stop`/`subagent_stop`: the agent does not stop, and goes on with the reason as its
//!   instruction. `session_start`/`pre_compact`: nothing to hold back; the person is told.
//! - any other code, no code (killed), a timeout, or JSON Paddock cannot use: a failure. By
//!   default (`onError: "open"`) a warning, and the run goes on, as Claude Code's
//!   "non-blocking error" (and its timed-out hook, which "doesn't block the tool call");
//!   with `onError: "closed"` (Claude Code's `onFailure: "block"`) what the hook guards is
//!   held back, as an exit 2 would.
//!
//! Every text kept (reason, context, message, warning) is bounded (`text::MAX_TEXT_BYTES`)
//! and says when it was cut.

use crate::event::HookPointExt;
use serde_json::Value;

use crate::event::HookPoint;
use crate::hook::{Hook, OnError};
use crate::output::{self, Answer, Verdict};
use crate::text::{MAX_TEXT_BYTES, bounded, cut, kept};

/// Said after a text taken from output the host cut at its limit.
const CUT_NOTE: &str = " [the hook's output was cut at the host's limit]";

/// How a hook's process ended, as the host saw it. The host bounds what it reads of each
/// stream and says so in `output_truncated`.
#[derive(Debug, Clone, Copy, Default)]
pub struct HookProcess<'a> {
    /// `None`: it was killed (by a signal, or by the host at the time limit).
    pub exit_code: Option<i32>,
    pub stdout: &'a [u8],
    pub stderr: &'a [u8],
    /// The host stopped it at its time limit.
    pub timed_out: bool,
    /// The host read only the start of stdout or stderr.
    pub output_truncated: bool,
}

/// What a hook decided. Which variants an event can give, and what they mean to the host:
///
/// | event | decisions |
/// |---|---|
/// | `pre_tool_use` | `Continue`, `Allow`, `Ask`, `Deny` |
/// | `post_tool_use` | `Continue`, `Block` (the call ran; the reason goes to the model) |
/// | `user_prompt_submit` | `Continue`, `Block` (the prompt is dropped; the reason goes to the person) |
/// | `stop`, `subagent_stop` | `Continue`, `Block` (the agent goes on; the reason is its instruction) |
/// | `session_start`, `pre_compact` | `Continue` |
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Decision {
    /// No decision: everything goes on as the grants say.
    #[default]
    Continue,
    /// Hold back what the event is about; see the table for what that means per event.
    Block { reason: String },
    /// `pre_tool_use`: the hook approves the call. A hook cannot widen what the agent may do:
    /// this only skips the approval prompt of a tool whose grant is Ask. It never lifts a
    /// deny (a Deny grant, a deny rule, the framework deny list), a run's preset ceiling or a
    /// caller's limit, and an ask rule still asks: as in Claude Code, where a hook's allow
    /// "doesn't skip the deny-rule and ask-rule steps" (read 2026-12-06,
    /// <https://code.claude.com/docs/en/agent-sdk/permissions>). Only the user's own hooks
    /// may skip an Ask: the host drops a project hook's allow ([`HookEffect::drop_allow`]).
    /// The host enforces this.
    Allow { reason: Option<String> },
    /// `pre_tool_use`: ask the person even where the grants allow the call (headless runs:
    /// deny). The reason is shown with the question.
    Ask { reason: Option<String> },
    /// `pre_tool_use`: the call does not run; the model is told the reason. Always honoured.
    Deny { reason: String },
}

impl Decision {
    /// Deny, then Block, then Ask, then Allow, then Continue: how outcomes combine.
    fn severity(&self) -> u8 {
        match self {
            Self::Continue => 0,
            Self::Allow { .. } => 1,
            Self::Ask { .. } => 2,
            Self::Block { .. } => 3,
            Self::Deny { .. } => 4,
        }
    }

    /// The reason given, if any.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Self::Continue => None,
            Self::Block { reason } | Self::Deny { reason } => Some(reason),
            Self::Allow { reason } | Self::Ask { reason } => reason.as_deref(),
        }
    }
}

/// A hook asked to end the run (`continue: false`). It takes precedence over the decision:
/// the host ends the run after this hook (a `pre_tool_use` call does not run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndRun {
    /// Shown to the person (not to the model).
    pub reason: String,
}

/// What one hook's run (or several, [`combine`]d) says the host should do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct HookEffect {
    pub decision: Decision,
    /// `pre_tool_use`: the input the call runs with instead (`updatedInput`). The host judges
    /// it by the grants and rules as if the model had sent it.
    pub rewritten_input: Option<Value>,
    /// Context for the model (`additionalContext`, or plain stdout where it counts).
    pub added_context: Option<String>,
    /// Shown to the person (`systemMessage`).
    pub system_message: Option<String>,
    /// The hook asked to end the run.
    pub stop: Option<EndRun>,
    /// The hook asked that its output stay out of the transcript (`suppressOutput`).
    pub suppress_output: bool,
    /// A failure that did not decide anything by itself (or, failing closed, the failure
    /// behind the decision): shown to the person.
    pub warning: Option<String>,
}

impl HookEffect {
    /// Takes back an allow (the call goes on as the grants say; a rewrite stays, judged by
    /// the grants again): for a hook whose answer the user did not write. True when there
    /// was one.
    pub fn drop_allow(&mut self) -> bool {
        if matches!(self.decision, Decision::Allow { .. }) {
            self.decision = Decision::Continue;
            return true;
        }
        false
    }
}

impl Hook {
    /// A hook the host did not run (`why`: its script changed since it was trusted): a
    /// failure by its failure mode, so a fail-closed guard still holds back what it guards.
    pub fn not_run(&self, why: &str) -> HookEffect {
        self.failed(format!("hook {} was not run: {why}", self.title()))
    }

    /// What this hook's run means, for this hook's event and failure mode.
    pub fn outcome(&self, run: &HookProcess<'_>) -> HookEffect {
        let note = if run.output_truncated { CUT_NOTE } else { "" };
        let stderr = kept(run.stderr).and_then(|s| bounded(&(s + note)));
        let failure = |what: String| {
            let why = match &stderr {
                Some(stderr) => format!("hook {} {what}: {stderr}", self.title()),
                None => format!("hook {} {what}", self.title()),
            };
            self.failed(why)
        };
        if run.timed_out {
            return failure(format!("timed out after {} s", self.timeout_secs()));
        }
        match run.exit_code {
            None => failure("was stopped before it finished".to_owned()),
            Some(0) => self.succeeded(run.stdout, note),
            Some(2) => {
                let reason = stderr.unwrap_or_else(|| {
                    format!(
                        "hook {} exited with code 2 and gave no reason",
                        self.title()
                    )
                });
                if self.event.can_block() {
                    blocked(self.event, reason)
                } else {
                    warned(reason)
                }
            }
            Some(code) => failure(format!("failed with exit code {code}")),
        }
    }

    /// A failure, by the hook's failure mode.
    fn failed(&self, why: String) -> HookEffect {
        let why = cut(&why, MAX_TEXT_BYTES);
        match self.on_error() {
            OnError::Closed if self.event.can_block() => HookEffect {
                warning: Some(why.clone()),
                ..blocked(self.event, why)
            },
            _ => warned(why),
        }
    }

    fn succeeded(&self, stdout: &[u8], note: &str) -> HookEffect {
        let text = String::from_utf8_lossy(stdout);
        let text = text.trim();
        if text.is_empty() {
            return HookEffect::default();
        }
        if text.starts_with('{') {
            return match output::read(self.event, text) {
                Ok(answer) => self.answered(answer),
                Err(why) => self.failed(format!(
                    "hook {} printed JSON Paddock cannot use: {why}{note}",
                    self.title()
                )),
            };
        }
        match self.event {
            HookPoint::UserPromptSubmit | HookPoint::SessionStart => HookEffect {
                added_context: bounded(&format!("{text}{note}")),
                ..HookEffect::default()
            },
            _ => HookEffect::default(),
        }
    }

    fn answered(&self, answer: Answer) -> HookEffect {
        let Answer {
            end_run,
            stop_reason,
            suppress_output,
            system_message,
            verdict,
            reason,
            updated_input,
            additional_context,
        } = answer;
        let decision = match verdict {
            None => Decision::Continue,
            Some(Verdict::Allow) => Decision::Allow { reason },
            Some(Verdict::Ask) => Decision::Ask { reason },
            Some(Verdict::Deny) => Decision::Deny {
                reason: reason.unwrap_or_else(|| format!("denied by hook {}", self.title())),
            },
            Some(Verdict::Block) => Decision::Block {
                reason: reason.unwrap_or_else(|| format!("blocked by hook {}", self.title())),
            },
        };
        let mut warning = None;
        let rewritten_input = match (&decision, updated_input) {
            (Decision::Deny { .. }, Some(_)) => {
                warning = Some(format!(
                    "hook {} denied the call and rewrote its input; the rewrite is dropped",
                    self.title()
                ));
                None
            }
            (_, input) => input,
        };
        HookEffect {
            decision,
            rewritten_input,
            added_context: additional_context,
            system_message,
            stop: end_run.then(|| EndRun {
                reason: stop_reason
                    .unwrap_or_else(|| format!("hook {} ended the run", self.title())),
            }),
            suppress_output,
            warning,
        }
    }
}

/// The outcome of several hooks of one event run for the same subject: the most severe
/// decision (deny, block, ask, allow) with its reason; contexts, messages and warnings
/// joined; the first request to end the run. Two hooks rewriting the input cancel out: the
/// call keeps the model's input, a warning says so, and the call asks at least.
pub fn combine(outcomes: impl IntoIterator<Item = HookEffect>) -> HookEffect {
    let mut out = HookEffect::default();
    let (mut contexts, mut messages, mut warnings) = (Vec::new(), Vec::new(), Vec::new());
    let mut rewrites = 0;
    for o in outcomes {
        if o.decision.severity() > out.decision.severity() {
            out.decision = o.decision;
        }
        if let Some(input) = o.rewritten_input {
            rewrites += 1;
            out.rewritten_input.get_or_insert(input);
        }
        contexts.extend(o.added_context);
        messages.extend(o.system_message);
        warnings.extend(o.warning);
        if out.stop.is_none() {
            out.stop = o.stop;
        }
        out.suppress_output |= o.suppress_output;
    }
    if rewrites > 1 {
        out.rewritten_input = None;
        warnings.push(format!(
            "{rewrites} hooks rewrote the call's input; none of the rewrites applies"
        ));
        if out.decision.severity() < (Decision::Ask { reason: None }).severity() {
            out.decision = Decision::Ask {
                reason: Some("hooks disagreed on the call's input".to_owned()),
            };
        }
    }
    if matches!(out.decision, Decision::Deny { .. }) {
        out.rewritten_input = None;
    }
    out.added_context = bounded(&contexts.join("\n\n"));
    out.system_message = bounded(&messages.join("\n"));
    out.warning = bounded(&warnings.join("\n"));
    out
}

/// What holding back means for `event`.
fn blocked(event: HookPoint, reason: String) -> HookEffect {
    let decision = match event {
        HookPoint::PreToolUse => Decision::Deny { reason },
        HookPoint::PostToolUse
        | HookPoint::UserPromptSubmit
        | HookPoint::Stop
        | HookPoint::SubagentStop => Decision::Block { reason },
        HookPoint::SessionStart | HookPoint::PreCompact => return warned(reason),
    };
    HookEffect {
        decision,
        ..HookEffect::default()
    }
}

fn warned(why: String) -> HookEffect {
    HookEffect {
        warning: bounded(&why),
        ..HookEffect::default()
    }
}
