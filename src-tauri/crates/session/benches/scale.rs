//! Sessions at scale: a project with 1,000 sessions (about 500 MB of JSONL, messages with
//! text and tool output). Measures the first index build, `list` and `search` once the index
//! is up to date (targets: 100 ms and 200 ms), and a search after one file grew.
//! `cargo bench -p paddock-session --bench scale` (PADDOCK_BENCH_SESSIONS and
//! PADDOCK_BENCH_SESSION_KB change the size). Prints its figures; not run by CI.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use paddock_core::HistoryLog;
use paddock_core::protocol::{ContentBlock, Message, Role, ToolCall, ToolResult};
use paddock_session::SessionStore;

const PROJECT: &str = "/bench/project";
const WORDS: [&str; 16] = [
    "build", "cargo", "test", "module", "parser", "error", "config", "window", "session", "index",
    "search", "thread", "memory", "socket", "widget", "render",
];

fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A session of about `kb` kilobytes: prompts, answers and tool calls with long outputs.
fn session(store: &SessionStore, n: usize, kb: usize) {
    let project = Path::new(PROJECT);
    let prompt = format!(
        "Task {n}: fix the {} in the {}",
        WORDS[n % 16],
        WORDS[(n / 16) % 16]
    );
    let (_, writer) = store.create(project, None, "m", &prompt).unwrap();
    let mut history = vec![Message::user_text(prompt)];
    let mut size = 0;
    let mut turn = 0;
    while size < kb * 1024 {
        let output: String = (0..400)
            .map(|i| WORDS[(n * 7 + turn * 3 + i) % 16])
            .collect::<Vec<_>>()
            .join(" ");
        size += output.len() + 200;
        let id = format!("call-{turn}");
        history.push(Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text {
                    text: format!("Turn {turn}: looking at the {}", WORDS[turn % 16]),
                },
                ContentBlock::ToolCall(ToolCall {
                    id: id.clone(),
                    name: "bash".into(),
                    input: serde_json::json!({"command": format!("grep -rn {} src", WORDS[turn % 16])}),
                    parsed_from_text: false,
                }.into()),
            ],
        });
        history.push(Message {
            role: Role::User,
            content: vec![ContentBlock::ToolResult(ToolResult {
                tool_call_id: id,
                content: output.into(),
                is_error: false,
            })],
        });
        turn += 1;
    }
    if n == 0 {
        history.push(Message::assistant_text("the zanzibar needle is here"));
    }
    writer.save(&history);
    writer.flush();
}

fn time<T>(what: &str, runs: usize, mut f: impl FnMut() -> T) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed()
        })
        .collect();
    times.sort();
    let median = times[times.len() / 2];
    println!(
        "{what:<44} median {:>9.1} ms (of {runs})",
        median.as_secs_f64() * 1e3
    );
    median
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let sessions = env_or("PADDOCK_BENCH_SESSIONS", 1_000);
    let kb = env_or("PADDOCK_BENCH_SESSION_KB", 500);
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path().to_path_buf());
    let t = Instant::now();
    for n in 0..sessions {
        session(&store, n, kb);
    }
    let project = Path::new(PROJECT);
    let total: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    println!(
        "{sessions} sessions, {:.0} MB of JSONL, written in {:.1} s",
        total as f64 / 1e6,
        t.elapsed().as_secs_f64()
    );
    // Cold: drop the index the list above built, then build it again.
    let index = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    for f in ["index.sqlite", "index.sqlite-wal", "index.sqlite-shm"] {
        let _ = std::fs::remove_file(index.join(f));
    }
    time("first index build (cold) + list", 1, || {
        store.list(project).unwrap().len()
    });
    time("list, index up to date", 9, || {
        store.list(project).unwrap().len()
    });
    time("search a common word (\"parser\")", 9, || {
        store.search(project, "parser").unwrap().len()
    });
    time("search a rare phrase (\"zanzibar needle\")", 9, || {
        store.search(project, "zanzibar needle").unwrap().len()
    });
    time("search a 2-letter query (\"zz\")", 3, || {
        store.search(project, "zz").unwrap().len()
    });
    // One session grows outside Paddock: the next search reads that file again.
    let grown = std::fs::read_dir(&index)
        .unwrap()
        .flatten()
        .find(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .unwrap()
        .path();
    let mut grow = || {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&grown)
            .unwrap();
        let line = serde_json::json!({"type": "message", "message": Message::assistant_text("grown again")});
        writeln!(f, "{line}").unwrap();
        store.search(project, "grown again").unwrap().len()
    };
    time("search after one file grew", 5, &mut grow);
}
