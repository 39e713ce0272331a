//! Test tools and helpers shared by the test suites of Paddock's crates (feature
//! `test-support`): an echo tool, a tool that fails, panics or sleeps on request, stand-ins
//! named like the built-ins, a scripted harness and the pairing check.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use crate::protocol::{AgentEvent, ContentBlock, Message, ToolPreset, ToolSpec};
pub use crate::scripted::{ScriptedModel, ScriptedTurn};
use crate::tool::typed;
use crate::{
    Agent, AgentConfig, CollectSink, GrantPolicy, ToolContext, ToolError, ToolOutput, ToolRegistry,
    TypedTool,
};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

/// Echo a message back.
#[derive(Deserialize, JsonSchema)]
pub struct EchoInput {
    /// Text to echo.
    pub text: String,
    /// Optional nested options.
    pub options: Option<EchoOptions>,
}

#[derive(Deserialize, JsonSchema)]
pub struct EchoOptions {
    pub upper: bool,
}

pub struct Echo;

#[async_trait]
impl TypedTool for Echo {
    type Input = EchoInput;
    const NAME: &'static str = "echo";
    async fn run(&self, input: EchoInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let upper = input.options.is_some_and(|o| o.upper);
        Ok(ToolOutput::ok(if upper {
            input.text.to_uppercase()
        } else {
            input.text
        }))
    }
}

/// A tool that does whatever its input says: fail, panic, sleep, or print a lot.
#[derive(Deserialize, JsonSchema)]
pub struct ActInput {
    pub action: String,
    #[serde(default)]
    pub n: u64,
}

#[derive(Default)]
pub struct Act {
    pub running: AtomicUsize,
    pub peak: AtomicUsize,
    pub runs: AtomicUsize,
}

pub struct ActTool(pub Arc<Act>);

#[async_trait]
impl TypedTool for ActTool {
    type Input = ActInput;
    const NAME: &'static str = "act";
    fn timeout(&self) -> Option<Duration> {
        Some(Duration::from_millis(500))
    }
    fn max_output_chars(&self) -> Option<usize> {
        Some(1000)
    }
    async fn run(&self, input: ActInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let act = &self.0;
        act.runs.fetch_add(1, Ordering::SeqCst);
        let now = act.running.fetch_add(1, Ordering::SeqCst) + 1;
        act.peak.fetch_max(now, Ordering::SeqCst);
        let result = match input.action.as_str() {
            "fail" => Err(ToolError::Failed("disk on fire".into())),
            "panic" => panic!("{EXPECTED_PANIC}"),
            "sleep" => {
                tokio::time::sleep(Duration::from_millis(input.n)).await;
                Ok(ToolOutput::ok(format!("slept {}", input.n)))
            }
            "big" => Ok(ToolOutput::ok(
                "x".repeat(usize::try_from(input.n).unwrap()),
            )),
            other => Ok(ToolOutput::ok(format!("did {other}"))),
        };
        act.running.fetch_sub(1, Ordering::SeqCst);
        result
    }
}

/// Named like a built-in, so presets apply; answers with its own name.
pub struct Fake {
    spec: ToolSpec,
}

/// Accepts anything.
#[derive(Deserialize, JsonSchema)]
pub struct AnyInput {}

impl Fake {
    pub fn new(name: &str) -> Self {
        let (description, input_schema) = crate::tool::schema_for::<AnyInput>();
        Self {
            spec: ToolSpec {
                name: name.to_owned(),
                description,
                input_schema,
            },
        }
    }
}

#[async_trait]
impl crate::Tool for Fake {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }
    /// Read-only like the built-in it is named after; runtime fakes named `*_read_*` too.
    fn mutates(&self) -> bool {
        let name = self.spec.name.as_str();
        !(matches!(name, "file_read" | "grep" | "glob" | "web_fetch") || name.contains("_read_"))
    }
    async fn call(
        &self,
        _input: &serde_json::Value,
        _ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::ok(format!("{} ran", self.spec.name)))
    }
}

pub const BUILTIN_NAMES: [&str; 7] = [
    "file_read",
    "grep",
    "glob",
    "web_fetch",
    "file_write",
    "file_edit",
    "bash",
];

/// A registry with echo, act and fakes named like every built-in.
pub fn registry(act: &Arc<Act>) -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(typed(Echo)).unwrap();
    r.register(typed(ActTool(act.clone()))).unwrap();
    for name in BUILTIN_NAMES {
        r.register(Arc::new(Fake::new(name))).unwrap();
    }
    Arc::new(r)
}

pub fn config_allowing(tools: &[&str]) -> AgentConfig {
    let mut c = AgentConfig::new("main", "test-model");
    c.grants = GrantPolicy::allowing(tools);
    c
}

pub fn config_with_preset(preset: ToolPreset) -> AgentConfig {
    let mut c = AgentConfig::new("main", "test-model");
    c.grants = GrantPolicy::with_preset(preset);
    c
}

pub struct Harness {
    pub agent: Agent,
    pub model: ScriptedModel,
    pub events: Arc<CollectSink>,
    pub act: Arc<Act>,
}

pub fn harness(config: AgentConfig, turns: Vec<ScriptedTurn>) -> Harness {
    let act = Arc::new(Act::default());
    let model = ScriptedModel::recording(turns);
    let events = CollectSink::new();
    let agent =
        Agent::new(config, Arc::new(model.clone()), registry(&act)).with_events(events.clone());
    Harness {
        agent,
        model,
        events,
        act,
    }
}

/// Every tool call in `messages` has exactly one result, after it.
pub fn assert_paired(messages: &[Message]) {
    let mut open: Vec<String> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        for b in &m.content {
            match b {
                ContentBlock::ToolCall(c) => open.push(c.id.clone()),
                ContentBlock::ToolResult(r) => {
                    let pos = open.iter().position(|id| *id == r.tool_call_id);
                    assert!(
                        pos.is_some(),
                        "result {} without a call (message {i})",
                        r.tool_call_id
                    );
                    open.remove(pos.unwrap());
                }
                _ => {}
            }
        }
        // Calls of an assistant message must be answered by the next message.
        if m.role == crate::protocol::Role::User {
            assert!(
                open.is_empty(),
                "unpaired calls {open:?} before message {i}"
            );
        }
    }
    assert!(open.is_empty(), "unpaired calls at the end: {open:?}");
}

/// The results of the last tool-result message, in order.
pub fn last_results(messages: &[Message]) -> Vec<(String, bool)> {
    messages
        .iter()
        .rev()
        .find(|m| m.tool_results().next().is_some())
        .map(|m| {
            m.tool_results()
                .map(|r| (r.content.to_string(), r.is_error))
                .collect()
        })
        .unwrap_or_default()
}

pub fn count_events(events: &[AgentEvent], pred: impl Fn(&AgentEvent) -> bool) -> usize {
    events.iter().filter(|e| pred(e)).count()
}

/// The message of the test tool's deliberate panic.
pub const EXPECTED_PANIC: &str = "tool exploded";

/// Keeps deliberate tool panics out of the test output; every other panic still prints.
pub fn quiet_expected_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let msg = info
                .payload()
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| info.payload().downcast_ref::<&str>().copied());
            if msg != Some(EXPECTED_PANIC) {
                default(info);
            }
        }));
    });
}
