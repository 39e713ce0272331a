//! Desktop benchmark (not a test): cold start to first paint, idle memory with one project
//! open, and the time to open a 10,000-event transcript, measured on the real app over
//! WebDriver. Run by `scripts/bench-desktop.sh` (release build, Xvfb, D-Bus).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use paddock_desktop_e2e::{App, Driver, Result, TestHome, app_binary, testid};
use serde_json::{Value, json};

/// Launches measured for cold start, and transcript openings.
const RUNS: usize = 5;
const TRANSCRIPT_EVENTS: usize = 10_000;
/// How long the app sits with a project open before its memory is read.
const SETTLE: Duration = Duration::from_secs(5);

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let home = TestHome::new()?.with_default_rendering();
    let settings = json!({"version": 1, "provider": "openai-compatible",
        "baseUrl": "http://127.0.0.1:9/v1", "model": "fake-model", "preset": "readonly"});
    let root = home.project("bench", Some(&settings))?;
    let session =
        paddock_desktop_e2e::transcript::write_session(&home.data_dir(), &root, TRANSCRIPT_EVENTS)?;
    let driver = Driver::start(&home, "bench").await?;
    let binary = std::fs::canonicalize(app_binary())?;
    println!("app: {}", binary.display());

    let mut starts = Vec::new();
    let mut opens = Vec::new();
    let mut memory = None;
    let mut seen = BTreeSet::new();
    for run in 0..RUNS {
        let app = driver.launch().await?;
        let pid = new_app_pid(&binary, &mut seen)?;
        app.wait_for(&testid("project-path-input")).await?;
        let start = cold_start_ms(&app, pid).await?;
        starts.push(start.total);

        app.type_into(&testid("project-path-input"), &root.to_string_lossy())
            .await?;
        app.click(&testid("open-path-button")).await?;
        app.switch_to_window_with("project=").await?;
        app.wait_for(&testid("session-item")).await?;
        if run == 0 {
            // The picker closed itself when it opened the project.
            tokio::time::sleep(SETTLE).await;
            memory = Some(Memory::of(pid)?);
        }
        let open = open_transcript_ms(&app, &session).await?;
        println!(
            "run {}: first paint {:.0} ms after process start (page navigation began at {:.0} \
             ms); transcript open {:.0} ms ({} tool cards, load_session alone {:.0} ms; \
             after the click: asked {}, loaded {}, rebuilt {})",
            run + 1,
            start.total,
            start.to_navigation,
            open.total,
            open.cards,
            open.load,
            ms(open.marks[0]),
            ms(open.marks[1]),
            ms(open.marks[2]),
        );
        opens.push(open);
        app.quit().await?;
    }
    driver.stop().await?;

    // The same start without WebDriver in the way (automation adds its own set-up).
    let mut direct = Vec::new();
    for _ in 0..RUNS {
        direct.push(direct_start_ms(&home, &binary).await?);
    }

    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let first_start = starts[0];
    println!();
    println!(
        "== Paddock desktop benchmark ({} runs, release build under Xvfb) ==",
        RUNS
    );
    println!(
        "cold start to first paint: median {:.0} ms (first launch {first_start:.0} ms; target <= 400 ms)",
        median(starts.clone())
    );
    println!(
        "cold start without WebDriver, spawn to the main page's load event: median {:.0} ms (runs: {})",
        median(direct.clone()),
        direct
            .iter()
            .map(|d| format!("{d:.0}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if let Some(m) = memory {
        println!(
            "idle memory, one project window: app + WebKit processes {:.0} MB PSS, app process alone {:.0} MB RSS ({} processes; target <= 80 MB)",
            m.total_pss_mb, m.app_rss_mb, m.processes
        );
        for (name, mb) in &m.each {
            println!("    {name}: {mb:.0} MB PSS");
        }
    }
    println!(
        "open a {TRANSCRIPT_EVENTS}-event transcript: median {:.0} ms click to rendered (load_session IPC alone: median {:.0} ms; target <= 300 ms)",
        median(opens.iter().map(|o| o.total).collect()),
        median(opens.iter().map(|o| o.load).collect())
    );
    Ok(())
}

/// Spawns the app directly and reads from its log when the main page finished loading;
/// milliseconds from the spawn. Stops the app with SIGTERM.
async fn direct_start_ms(home: &TestHome, binary: &Path) -> Result<f64> {
    let mut cmd = tokio::process::Command::new(binary);
    home.apply(&mut cmd);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let spawned = SystemTime::now();
    let mut child = cmd.spawn()?;
    let logs = home.path().join(".local/share/dev.paddock.app/logs");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let loaded = loop {
        if let Some(at) = page_loaded_after(&logs, spawned) {
            break Ok(at.duration_since(spawned)?.as_secs_f64() * 1000.0);
        }
        if std::time::Instant::now() > deadline {
            break Err("the app logged no 'page loaded' for the main window within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    if let Some(pid) = child.id() {
        std::process::Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status()?;
    }
    tokio::time::timeout(Duration::from_secs(20), child.wait()).await??;
    loaded
}

/// The time of the first "page loaded" line for the main window logged after `since`.
fn page_loaded_after(logs: &Path, since: SystemTime) -> Option<SystemTime> {
    for file in std::fs::read_dir(logs).ok()?.flatten() {
        let text = std::fs::read_to_string(file.path()).unwrap_or_default();
        for line in text.lines() {
            if !(line.contains("page loaded") && line.contains("window=\"main\"")) {
                continue;
            }
            let stamp = line.split_whitespace().next()?;
            let at = humantime::parse_rfc3339_weak(stamp).ok()?;
            if at > since {
                return Some(at);
            }
        }
    }
    None
}

/// The app process that appeared since the last call.
fn new_app_pid(binary: &Path, seen: &mut BTreeSet<u32>) -> Result<u32> {
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let exe = std::fs::read_link(entry.path().join("exe")).unwrap_or_default();
        if exe == binary && seen.insert(pid) {
            return Ok(pid);
        }
    }
    Err(format!("no new process running {}", binary.display()).into())
}

/// When the main window painted, split at the page's navigation start.
struct Start {
    /// Process start to first contentful paint.
    total: f64,
    /// Process start to the page's navigation start (GTK, WebKit processes, the window).
    to_navigation: f64,
}

/// Milliseconds from the process's start to the main window's first contentful paint.
async fn cold_start_ms(app: &App, pid: u32) -> Result<Start> {
    let paint: Value = app
        .wd
        .execute(
            "const p = performance.getEntriesByName('first-contentful-paint')[0]
                 || performance.getEntriesByType('paint')[0];
             return p ? [performance.timeOrigin, p.startTime] : null;",
            Vec::new(),
        )
        .await?
        .json()
        .clone();
    let (Some(origin), Some(fcp)) = (paint[0].as_f64(), paint[1].as_f64()) else {
        return Err("the webview reports no paint timing (PerformancePaintTiming)".into());
    };
    let started = process_start_epoch_ms(pid)?;
    Ok(Start {
        total: origin + fcp - started,
        to_navigation: origin - started,
    })
}

/// When `pid` started, in ms since the epoch: its start in clock ticks since boot, with boot
/// time from /proc/uptime (10 ms resolution, unlike /proc/stat's whole seconds).
fn process_start_epoch_ms(pid: u32) -> Result<f64> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs_f64() * 1000.0;
    let uptime: f64 = std::fs::read_to_string("/proc/uptime")?
        .split_whitespace()
        .next()
        .ok_or("empty /proc/uptime")?
        .parse()?;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may contain spaces) start at field 3.
    let after = stat.rsplit_once(')').ok_or("bad /proc/pid/stat")?.1;
    let start_ticks: f64 = after
        .split_whitespace()
        .nth(19)
        .ok_or("no starttime in /proc/pid/stat")?
        .parse()?;
    let ticks = clock_ticks()?;
    Ok(now - uptime * 1000.0 + start_ticks / ticks * 1000.0)
}

fn clock_ticks() -> Result<f64> {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()?;
    Ok(String::from_utf8(out.stdout)?.trim().parse()?)
}

struct Memory {
    app_rss_mb: f64,
    total_pss_mb: f64,
    processes: usize,
    /// Each process's name and PSS in MB.
    each: Vec<(String, f64)>,
}

impl Memory {
    /// The app's own RSS, and the PSS (shared pages split fairly) of the app and every
    /// process under it (WebKit's web and network processes).
    fn of(pid: u32) -> Result<Self> {
        let tree = descendants(pid)?;
        let mut each = Vec::new();
        for p in &tree {
            let pss = field_kb(&format!("/proc/{p}/smaps_rollup"), "Pss:").unwrap_or(0.0);
            let name = std::fs::read_to_string(format!("/proc/{p}/comm")).unwrap_or_default();
            each.push((name.trim().to_owned(), pss / 1024.0));
        }
        Ok(Self {
            app_rss_mb: field_kb(&format!("/proc/{pid}/status"), "VmRSS:")? / 1024.0,
            total_pss_mb: each.iter().map(|(_, mb)| mb).sum(),
            processes: tree.len(),
            each,
        })
    }
}

fn field_kb(file: &str, name: &str) -> Result<f64> {
    let text = std::fs::read_to_string(file)?;
    let line = text
        .lines()
        .find(|l| l.starts_with(name))
        .ok_or_else(|| format!("no {name} in {file}"))?;
    Ok(line.split_whitespace().nth(1).ok_or("no value")?.parse()?)
}

/// `pid` and every process below it.
fn descendants(pid: u32) -> Result<Vec<u32>> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc")?.flatten() {
        let Some(p) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok());
        if let Some(ppid) = ppid {
            parents.push((p, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, pp)| *pp == parent)
                .map(|(p, _)| *p),
        );
        i += 1;
    }
    Ok(tree)
}

struct Open {
    /// Click to the frame after the transcript's final banner is in the page.
    total: f64,
    /// `load_session` over IPC, parse included, nothing rendered.
    load: f64,
    cards: u64,
    /// From the click: the UI asked for the session, had it, had rebuilt the transcript.
    marks: [Option<f64>; 3],
}

fn ms(mark: Option<f64>) -> String {
    mark.map_or_else(|| "?".to_owned(), |m| format!("{m:.0} ms"))
}

/// Opens the session from the sidebar and times it inside the page (no WebDriver round trips
/// in the measurement).
async fn open_transcript_ms(app: &App, session: &str) -> Result<Open> {
    app.wd.set_script_timeout(Duration::from_secs(120)).await?;
    let project = app
        .wd
        .current_url()
        .await?
        .query_pairs()
        .find(|(k, _)| k == "project")
        .map(|(_, v)| v.into_owned())
        .ok_or("the project window has no ?project=")?;
    let load: Value = app
        .wd
        .execute_async(
            "const [project, sessionId, done] = arguments;
             const t0 = performance.now();
             window.__TAURI_INTERNALS__.invoke('load_session', { project, sessionId })
               .then(() => done(performance.now() - t0), (e) => done(-1));",
            vec![json!(project), json!(session)],
        )
        .await?
        .json()
        .clone();
    let measured: Value = app
        .wd
        .execute_async(
            "const [sessionId, done] = arguments;
             const item = document.querySelector(
               `[data-testid=session-item][data-session-id=\"${sessionId}\"] [data-testid=session-open]`);
             if (!item) { done({ error: 'no session-open for ' + sessionId }); return; }
             const t0 = performance.now();
             item.click();
             const check = () => {
               if (document.querySelector('[data-testid=run-banner]')) {
                 requestAnimationFrame(() => {
                   const at = (name) => {
                     const m = performance.getEntriesByName('paddock:' + name).at(-1);
                     return m && m.startTime >= t0 ? m.startTime - t0 : null;
                   };
                   done({
                     ms: performance.now() - t0,
                     cards: document.querySelectorAll('[data-testid=tool-card]').length,
                     marks: [at('session-open'), at('session-loaded'), at('session-rebuilt')],
                   });
                 });
               } else if (performance.now() - t0 > 100000) {
                 done({ error: 'the transcript did not render within 100 s' });
               } else {
                 requestAnimationFrame(check);
               }
             };
             requestAnimationFrame(check);",
            vec![json!(session)],
        )
        .await?
        .json()
        .clone();
    if let Some(e) = measured.get("error") {
        return Err(format!("{e}").into());
    }
    Ok(Open {
        total: measured["ms"].as_f64().ok_or("no timing")?,
        load: load.as_f64().ok_or("no load timing")?,
        cards: measured["cards"].as_u64().unwrap_or(0),
        marks: [0, 1, 2].map(|i| measured["marks"][i].as_f64()),
    })
}
