//! A streamed answer of 50,000 tokens from the fake model, with the transcript's frame times
//! sampled from outside the UI: a requestAnimationFrame loop installed over WebDriver records
//! every frame; the intervals over the stream's last seconds are its frame time at the end.
//! The app's memory is read with the project open, before the prompt and after the run.

use std::path::Path;
use std::time::{Duration, Instant};

use paddock_desktop_e2e::{App, Result, testid};
use paddock_fake_model::{FakeServer, Reply};
use serde_json::Value;

use crate::procs::Snapshot;

/// 4 characters a token, the fake server's and the kernel's estimate.
pub const TOKENS: usize = 50_000;
const CHARS: usize = TOKENS * 4;
/// Characters per SSE chunk (about 4 tokens) and the pause between chunks: 12,500 chunks,
/// roughly 1,500-3,000 tokens a second, faster than any model streams.
const CHUNK_CHARS: usize = 16;
const DRIP_MS: u64 = 1;
/// The window at the end of the stream that counts as "its end".
pub const END_WINDOW_MS: f64 = 3000.0;

/// An answer of `CHARS` characters: prose paragraphs with some inline markdown.
pub fn answer() -> String {
    const WORDS: [&str; 12] = [
        "the",
        "parser",
        "allocates",
        "a",
        "buffer",
        "for",
        "each",
        "token",
        "and",
        "`Vec`",
        "**then**",
        "frees",
    ];
    let mut text = String::with_capacity(CHARS + 16);
    let mut i = 0usize;
    while text.len() < CHARS {
        text.push_str(WORDS[(i * 7 + i / 12) % WORDS.len()]);
        i += 1;
        text.push_str(if i.is_multiple_of(90) { ".\n\n" } else { " " });
    }
    text.truncate(CHARS);
    text
}

/// Queues the answer on the fake server.
pub fn script(fake: &FakeServer) {
    fake.push(
        Reply::text(answer())
            .with_chunk_chars(CHUNK_CHARS)
            .with_drip_ms(DRIP_MS)
            .with_usage(200, TOKENS as u64),
    );
}

/// Frame intervals (ms) over the stream's last `END_WINDOW_MS`, over all of it, and over
/// `IDLE` before the prompt was sent (what this display gives an idle page).
pub struct Frames {
    pub stream_ms: f64,
    pub chars: u64,
    pub end: Stats,
    pub all: Stats,
    pub idle: Stats,
    /// The app's processes with the project open, before the prompt, `SETTLE` after the run
    /// and `LATER` after it.
    pub before: Snapshot,
    pub after: Snapshot,
    pub later: Snapshot,
}

const IDLE: Duration = Duration::from_secs(2);
/// When the memory is read again after the run (what it holds for good); the first reading
/// is `SETTLE` after it, as in the idle rows.
pub const LATER: Duration = Duration::from_secs(30);

pub struct Stats {
    pub frames: u64,
    pub p50: f64,
    pub p95: f64,
    pub max: f64,
    /// Frames longer than one 60 Hz frame (16.7 ms) plus 1 ms of timer slack.
    pub over_budget: u64,
}

impl Stats {
    fn from(v: &Value) -> Self {
        let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        Self {
            frames: v["frames"].as_u64().unwrap_or(0),
            p50: f("p50"),
            p95: f("p95"),
            max: f("max"),
            over_budget: v["over"].as_u64().unwrap_or(0),
        }
    }
}

/// In the project window of `root` (app process `pid`): sends a prompt, samples frames until
/// the run's banner shows, and returns the frame statistics and the memory around the run.
pub async fn measure(app: &App, pid: u32, root: &Path) -> Result<Frames> {
    crate::paddock::open_from_picker(app, root).await?;
    app.click(&testid("tab-transcript")).await?;
    app.type_into(&testid("prompt-input"), "Explain the parser at length")
        .await?;
    let before = crate::settled(pid, "stream-before").await?;
    // The sampler runs in the page; WebDriver only starts it and collects the result.
    app.wd
        .execute(
            "window.__frames = { t: [], first: null, end: null };
             const s = window.__frames;
             const tick = () => {
               const now = performance.now();
               s.t.push(now);
               const answer = document.querySelector('[data-testid=message-assistant]');
               if (answer && s.first === null) s.first = now;
               if (document.querySelector('[data-testid=run-banner][data-exit]')) {
                 s.end = now;
                 s.chars = answer ? answer.textContent.length : 0;
                 return;
               }
               requestAnimationFrame(tick);
             };
             requestAnimationFrame(tick);",
            Vec::new(),
        )
        .await?;
    tokio::time::sleep(IDLE).await;
    app.wd
        .execute("window.__frames.sent = performance.now()", Vec::new())
        .await?;
    app.click(&testid("send-button")).await?;
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let done = app
            .wd
            .execute("return window.__frames.end !== null", Vec::new())
            .await?;
        if done.json() == &Value::Bool(true) {
            break;
        }
        if Instant::now() > deadline {
            return Err("the streamed answer did not finish within 600 s".into());
        }
    }
    let result = app
        .wd
        .execute(
            "const [window_ms] = arguments;
             const s = window.__frames;
             const stats = (from, to) => {
               const d = [];
               for (let i = 1; i < s.t.length; i++) {
                 if (s.t[i - 1] >= from && s.t[i] <= to) d.push(s.t[i] - s.t[i - 1]);
               }
               d.sort((a, b) => a - b);
               const q = (p) => d.length ? d[Math.min(d.length - 1, Math.floor(p * d.length))] : null;
               return { frames: d.length, p50: q(0.5), p95: q(0.95), max: d.at(-1) ?? null,
                        over: d.filter((x) => x > 17.7).length };
             };
             return { stream_ms: s.end - (s.first ?? s.end), chars: s.chars,
                      end: stats(s.end - window_ms, s.end), all: stats(s.first ?? s.end, s.end),
                      idle: stats(0, s.sent) };",
            vec![serde_json::json!(END_WINDOW_MS)],
        )
        .await?;
    let after = crate::settled(pid, "stream-after").await?;
    tokio::time::sleep(LATER - crate::SETTLE).await;
    let later = crate::read(pid, "stream-later")?;
    let v = result.json();
    Ok(Frames {
        stream_ms: v["stream_ms"].as_f64().unwrap_or(f64::NAN),
        chars: v["chars"].as_u64().unwrap_or(0),
        end: Stats::from(&v["end"]),
        all: Stats::from(&v["all"]),
        idle: Stats::from(&v["idle"]),
        before,
        after,
        later,
    })
}
