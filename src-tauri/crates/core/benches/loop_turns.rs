//! Kernel overhead per turn: 1,000 scripted turns with two trivial tool calls each.
//! Prints peak heap use of one such run besides criterion's timings.
#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
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

const TURNS: u64 = 1_000;
/// The second workload: fewer turns, each tool returning 10 KB.
const BIG_TURNS: u64 = 200;
const BIG_OUTPUT: usize = 10 * 1024;

/// Counts live and peak heap bytes.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards to the system allocator unchanged; only adds counters.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

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

fn registry() -> Arc<ToolRegistry> {
    let mut r = ToolRegistry::new();
    r.register(typed(Noop)).unwrap();
    r.register(typed(Big)).unwrap();
    Arc::new(r)
}

async fn one_run(registry: Arc<ToolRegistry>) {
    run_of(registry, TURNS, "noop").await;
}

async fn run_of(registry: Arc<ToolRegistry>, turns: u64, tool: &'static str) {
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

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let registry = registry();

    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    rt.block_on(one_run(registry.clone()));
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "peak heap during one {TURNS}-turn run: {:.2} MiB ({} bytes)",
        peak as f64 / (1024.0 * 1024.0),
        peak
    );

    let mut group = c.benchmark_group("kernel_loop");
    group.sample_size(20);
    group.bench_function("1000_turns_two_tool_calls_each", |b| {
        b.iter(|| rt.block_on(one_run(registry.clone())));
    });
    group.bench_function("200_turns_two_10kb_outputs_each", |b| {
        b.iter(|| rt.block_on(run_of(registry.clone(), BIG_TURNS, "big")));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
