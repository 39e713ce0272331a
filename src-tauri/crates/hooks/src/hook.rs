//! One hook as the configuration gives it: when it runs (event, matcher, Paddock rule), what
//! it runs (a shell command, or a program and its arguments), its time limit and what a
//! failure means; with its digest and a short title.

pub(crate) mod outcome;
pub(crate) mod script;

use crate::event::HookPointExt;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::digest::{Pinned, digest};
use crate::event::HookPoint;
use crate::matcher::Matcher;
use crate::rule::HookRule;
use crate::subject::Subject;
use crate::text::snippet;

/// Time limit of a hook that names none, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u32 = 60;
/// Longest time limit a hook may name, in seconds.
pub const MAX_TIMEOUT_SECS: u32 = 600;

/// What a hook's failure means: it timed out, was killed, exited with a code other than 0
/// or 2, or printed JSON Paddock cannot use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OnError {
    /// The failure is a warning and the run goes on, as in Claude Code by default (its
    /// "non-blocking error").
    #[default]
    Open,
    /// The failure holds back what the hook guards: the call is denied, the prompt blocked.
    /// Claude Code's `onFailure: "block"` (read the same way).
    Closed,
}

impl OnError {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Closed => "closed",
        }
    }
}

/// How the host starts a hook's process (always inside the OS wall).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Invocation<'a> {
    /// `command` as a shell command line (`sh -c`), as Claude Code and Codex run it.
    Shell(&'a str),
    /// Paddock's `args` given: `command` is the program, run with these arguments and no
    /// shell, so nothing in them is ever read as shell syntax.
    Program {
        program: &'a str,
        args: &'a [String],
    },
}

/// A hook's identity for trust records: its digest.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct HookId(pub String);

impl fmt::Display for HookId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One hook, checked and compiled.
#[derive(Debug, Clone)]
pub struct Hook {
    pub(crate) event: HookPoint,
    pub(crate) matcher_text: Option<String>,
    pub(crate) matcher: Matcher,
    pub(crate) rule_text: Option<String>,
    pub(crate) rule: Option<HookRule>,
    pub(crate) command: String,
    pub(crate) args: Option<Vec<String>>,
    /// As written (`None`: the default).
    pub(crate) timeout: Option<u32>,
    /// As written (`None`: the default).
    pub(crate) on_error: Option<OnError>,
    pub(crate) status_message: Option<String>,
    pub(crate) digest: String,
}

/// Everything but the compiled forms, which follow from the texts.
impl PartialEq for Hook {
    fn eq(&self, other: &Self) -> bool {
        self.event == other.event
            && self.matcher_text == other.matcher_text
            && self.rule_text == other.rule_text
            && self.command == other.command
            && self.args == other.args
            && self.timeout == other.timeout
            && self.on_error == other.on_error
            && self.status_message == other.status_message
    }
}

impl Hook {
    /// Fills in the digest of a hook whose fields are set.
    pub(crate) fn pinned(mut self) -> Self {
        self.digest = digest(&Pinned {
            event: self.event.name(),
            matcher: self.matcher_text.as_deref(),
            rule: self.rule_text.as_deref(),
            command: &self.command,
            args: self.args.as_deref(),
            timeout_secs: self.timeout_secs(),
            on_error: self.on_error().as_str(),
        });
        self
    }

    pub fn event(&self) -> HookPoint {
        self.event
    }

    /// The group's matcher as written (`None` when there is none).
    pub fn matcher(&self) -> Option<&str> {
        self.matcher_text.as_deref()
    }

    /// Paddock's rule as written (`bash(git push *)`).
    pub fn rule(&self) -> Option<&str> {
        self.rule_text.as_deref()
    }

    pub fn command(&self) -> &str {
        &self.command
    }

    pub fn args(&self) -> Option<&[String]> {
        self.args.as_deref()
    }

    /// How the host starts the process.
    pub fn invocation(&self) -> Invocation<'_> {
        match &self.args {
            Some(args) => Invocation::Program {
                program: &self.command,
                args,
            },
            None => Invocation::Shell(&self.command),
        }
    }

    /// The time limit that applies, in seconds.
    pub fn timeout_secs(&self) -> u32 {
        self.timeout.unwrap_or(DEFAULT_TIMEOUT_SECS)
    }

    /// The failure mode that applies.
    pub fn on_error(&self) -> OnError {
        self.on_error.unwrap_or_default()
    }

    /// The text the hook asks to be shown while it runs (display only).
    pub fn status_message(&self) -> Option<&str> {
        self.status_message.as_deref()
    }

    /// SHA-256 (lowercase hex) of what decides what the hook runs and when; see the
    /// `digest` module for what it covers.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    pub fn id(&self) -> HookId {
        HookId(self.digest.clone())
    }

    /// A short title: `pre_tool_use · bash(git push *) · ./scripts/check.sh`.
    pub fn title(&self) -> String {
        let mut parts = vec![self.event.name().to_owned()];
        if let Some(rule) = &self.rule_text {
            parts.push(snippet(rule).into_owned());
        } else if let Some(m) = self.matcher_text.as_deref().filter(|m| !m.is_empty()) {
            parts.push(snippet(m).into_owned());
        }
        let mut command = self.command.clone();
        for arg in self.args.iter().flatten() {
            command.push(' ');
            command.push_str(arg);
        }
        parts.push(snippet(&command).into_owned());
        parts.join(" · ")
    }

    /// Whether the hook runs for this subject: the event's kind of subject, the matcher,
    /// and for a call the rule.
    pub fn matches(&self, subject: &Subject<'_>) -> bool {
        match subject {
            Subject::Call(call) if self.event.is_tool_event() => {
                self.matcher.matches_tool(call.tool)
                    && self.rule.as_ref().is_none_or(|r| r.matches(call))
            }
            Subject::Session(source) if self.event == HookPoint::SessionStart => {
                self.matcher.matches_word(source.word())
            }
            Subject::Compaction(trigger) if self.event == HookPoint::PreCompact => {
                self.matcher.matches_word(trigger.word())
            }
            Subject::Nothing => matches!(
                self.event,
                HookPoint::UserPromptSubmit | HookPoint::Stop | HookPoint::SubagentStop
            ),
            _ => false,
        }
    }

    /// The hook as Paddock writes it (the group's matcher is written by the group).
    pub(crate) fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("type".into(), json!("command"));
        out.insert("command".into(), json!(self.command));
        if let Some(args) = &self.args {
            out.insert("args".into(), json!(args));
        }
        if let Some(timeout) = self.timeout {
            out.insert("timeout".into(), json!(timeout));
        }
        if let Some(rule) = &self.rule_text {
            out.insert("rule".into(), json!(rule));
        }
        if let Some(on_error) = self.on_error {
            out.insert("onError".into(), json!(on_error));
        }
        if let Some(message) = &self.status_message {
            out.insert("statusMessage".into(), json!(message));
        }
        Value::Object(out)
    }
}
