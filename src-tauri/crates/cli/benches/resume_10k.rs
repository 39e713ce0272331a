//! Resuming a long session: a 10,000-record session file (header, messages and events, as
//! `paddock exec` writes them, ending the way a crash leaves it: a tool call without its
//! result and a torn last line) is loaded and resumed. Prints the file size and the peak
//! heap of one load and one resume besides criterion's timings.
#![allow(unsafe_code, clippy::unwrap_used, clippy::expect_used)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use paddock_core::{EventSink, HistoryLog};
use paddock_protocol::{
    AgentEvent, ContentBlock, Message, Role, StopReason, TokenUsage, ToolCall, ToolResult,
    ToolStatus,
};
use paddock_session::{INTERRUPTED_RESULT, SessionStore};
use serde_json::json;

/// Lines in the session file, the header included (the torn line is extra).
const RECORDS: usize = 10_000;
/// A typical file_read result: a screenful of code.
const OUTPUT_CHARS: usize = 1_000;

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

fn call(n: usize) -> ToolCall {
    ToolCall {
        id: format!("call_{n}"),
        name: "file_read".into(),
        input: json!({"path": format!("src/module_{n}.rs")}),
        parsed_from_text: false,
    }
}

/// Writes the session through the same writer `paddock exec` uses; returns its id.
fn generate(store: &SessionStore, project: &Path) -> String {
    let (header, writer) = store
        .create(
            project,
            Some("openai-compatible"),
            "bench-model",
            "Read every module",
        )
        .unwrap();
    let output: String = "fn example() { let x = 1; }\n"
        .repeat(OUTPUT_CHARS / 28 + 1)
        .chars()
        .take(OUTPUT_CHARS)
        .collect();
    let mut records = 1; // the header
    let mut messages = vec![Message::user_text("Read every module and summarise them.")];
    writer.save(&messages);
    records += 1;
    writer.emit(AgentEvent::RunStarted {
        agent: "main".into(),
        model: "bench-model".into(),
        max_turns: 100,
        pricing: None,
    });
    records += 1;
    let mut turn = 0;
    // Each turn: the call, its result, and three events. The last record is a call
    // whose result never made it to disk.
    while records + 5 < RECORDS {
        turn += 1;
        let c = call(turn);
        messages.push(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: format!("Reading module {turn} next, then I will compare it."),
                },
                ContentBlock::ToolCall(c.clone().into()),
            ],
        });
        messages.push(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                tool_call_id: c.id.clone(),
                content: output.as_str().into(),
                is_error: false,
            })],
        });
        writer.save(&messages);
        writer.emit(AgentEvent::ToolCallFinished {
            id: c.id,
            name: c.name,
            summary: "src/lib.rs".to_owned(),
            output: output.as_str().into(),
            is_error: false,
            status: ToolStatus::Ok,
            duration_ms: 3,
            why: String::new(),
            changes: Vec::new(),
        });
        let usage = TokenUsage::new(1_200, 60);
        writer.emit(AgentEvent::Usage {
            turn: usage,
            total: usage,
            total_cost: None,
            turn_cost: None,
        });
        writer.emit(AgentEvent::TurnFinished {
            turn: u32::try_from(turn).unwrap(),
            stop_reason: StopReason::ToolUse,
        });
        records += 5;
    }
    while records < RECORDS - 1 {
        writer.emit(AgentEvent::warning("padding"));
        records += 1;
    }
    messages.push(Message {
        role: Role::Assistant,
        content: vec![ContentBlock::ToolCall(call(turn + 1).into())],
    });
    writer.save(&messages);
    writer.flush();
    assert!(writer.error().is_none());
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(writer.path())
        .unwrap();
    // The run's last event, cut short by the crash.
    write!(file, r#"{{"type":"event","event":{{"type":"run_fin"#).unwrap();
    header.id
}

fn measure<T>(label: &str, f: impl FnOnce() -> T) -> T {
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let started = std::time::Instant::now();
    let value = f();
    let elapsed = started.elapsed();
    let peak = PEAK.load(Ordering::Relaxed) - before;
    println!(
        "{label}: {:.1} ms, peak heap {:.2} MiB ({peak} bytes)",
        elapsed.as_secs_f64() * 1e3,
        peak as f64 / (1024.0 * 1024.0),
    );
    value
}

/// The generated session copied over the one in a second store, so every resume starts
/// from the crashed state and repairs it.
fn fresh_copy(source: &Path, dir: &Path, id: &str) -> SessionStore {
    let store = SessionStore::new(dir.join("copy"));
    // The project's folder inside the store has the name the source has.
    let project_dir = source.parent().unwrap().file_name().unwrap();
    let target = store.root().join(project_dir);
    std::fs::create_dir_all(&target).unwrap();
    std::fs::copy(source, target.join(format!("{id}.jsonl"))).unwrap();
    store
}

fn bench(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let project = PathBuf::from("/bench/project");
    let store = SessionStore::new(tmp.path().join("sessions"));
    let id = generate(&store, &project);
    let source = store
        .root()
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join(format!("{id}.jsonl"));
    let text = std::fs::read_to_string(&source).unwrap();
    let lines = text.lines().count();
    println!(
        "session file: {lines} lines ({RECORDS} records + 1 torn), {:.2} MiB",
        text.len() as f64 / (1024.0 * 1024.0)
    );
    drop(text);

    let loaded = measure("load (one run)", || store.load(&project, &id).unwrap());
    println!(
        "  {} messages, {} events, {} warning(s)",
        loaded.messages.len(),
        loaded.events.len(),
        loaded.warnings.len()
    );
    drop(loaded);
    let copy = fresh_copy(&source, tmp.path(), &id);
    let (resumed, _writer) = measure("resume (one run)", || copy.resume(&project, &id).unwrap());
    let last = resumed.messages.last().unwrap();
    assert!(
        last.tool_results().any(|r| r.content == INTERRUPTED_RESULT),
        "resume paired the lost call"
    );
    drop(resumed);

    let mut group = c.benchmark_group("session_resume");
    group.sample_size(20);
    group.bench_function("load_10k_records", |b| {
        b.iter(|| store.load(&project, &id).unwrap());
    });
    group.bench_function("resume_10k_records", |b| {
        b.iter_batched(
            || fresh_copy(&source, tmp.path(), &id),
            |copy| copy.resume(&project, &id).unwrap(),
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
