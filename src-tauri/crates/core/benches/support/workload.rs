//! The scripted workload the kernel benchmark and the `loop_rss` example share: a model
//! that asks for two tool calls per turn, a no-op tool and a tool returning 10 KB.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use futures_util::StreamExt;
use paddock_core::model::{Model, ModelEvent, ModelRequest, ModelStream};
use paddock_core::protocol::{ExitReason, StopReason, TokenUsage, ToolCall};
use paddock_core::tool::typed;
use paddock_core::{
    Agent, AgentConfig, GrantPolicy, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

pub const TURNS: u64 = 1_000;
/// The second workload: fewer turns, each tool returning 10 KB.
pub const BIG_TURNS: u64 = 200;
pub const BIG_OUTPUT: usize = 10 * 1024;

/// Answers with two calls per turn for `TURNS` turns, then a final text. Generates turns on
/// the fly so the benchmark measures the kernel, not a prebuilt script.
struct TurnModel {
    calls: AtomicU64,
    turns: u64,
    tool: &'static str,
}

impl Model for TurnModel {
    fn stream(&self, _request: &ModelRequest<'_>) -> ModelStream {
        let n = self.calls.fetch_add(1, Ordering::Relaxed);
        let events = if n < self.turns {
            vec![
                ModelEvent::ToolCall(ToolCall {
                    id: format!("a{n}"),
                    name: self.tool.into(),
                    input: json!({"n": n}),
                    parsed_from_text: false,
                }),
                ModelEvent::ToolCall(ToolCall {
                    id: format!("b{n}"),
                    name: self.tool.into(),
                    input: json!({"n": n + 1_000_000}),
                    parsed_from_text: false,
                }),
                ModelEvent::Usage(TokenUsage::new(10, 5)),
                ModelEvent::Stop(StopReason::ToolUse),
            ]
        } else {
            vec![
                ModelEvent::TextDelta("done".into()),
                ModelEvent::Stop(StopReason::EndTurn),
            ]
        };
        futures_util::stream::iter(events.into_iter().map(Ok)).boxed()
    }
}

/// Does nothing.
#[derive(Deserialize, JsonSchema)]
struct NoopInput {
    #[allow(dead_code)]
    n: u64,
}

struct Noop;

#[async_trait]
impl TypedTool for Noop {
    type Input = NoopInput;
    const NAME: &'static str = "noop";
    async fn run(&self, _input: NoopInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::ok("ok"))
    }
}

/// Returns 10 KB of text.
struct Big;

#[async_trait]
impl TypedTool for Big {
    type Input = NoopInput;
    const NAME: &'static str = "big";
    async fn run(&self, _input: NoopInput, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::ok("x".repeat(BIG_OUTPUT)))
    }
}

pub fn registry() -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(typed(Noop)).unwrap();
    r.register(typed(Big)).unwrap();
    Arc::new(r)
}

pub async fn one_run(registry: Arc<ToolRegistry>) {
    run_of(registry, TURNS, "noop").await;
}

pub async fn run_of(registry: Arc<ToolRegistry>, turns: u64, tool: &'static str) {
    let mut config = AgentConfig::new("bench", "bench-model");
    config.grants = GrantPolicy::allowing(&["noop", "big"]);
    config.max_turns = u32::try_from(turns).unwrap() + 1;
    let model = Arc::new(TurnModel {
        calls: AtomicU64::new(0),
        turns,
        tool,
    });
    let mut agent = Agent::new(config, model, registry);
    let r = agent.run("go").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert_eq!(r.turns, u32::try_from(turns).unwrap() + 1);
}
