//! Desktop benchmark (not a test): Paddock against the floor, a minimal Tauri 2 app on the
//! same stack (bench/desktop-floor), measured in the same run and interleaved: spawn to page
//! loaded, idle PSS per process with one and two windows, whether Mesa/LLVM is mapped; then
//! Paddock alone: opening a 10,000-event transcript, and the frame time at the end of a
//! streamed 50,000-token answer with the memory before and after it. Run by
//! `scripts/bench-desktop.sh` (release builds, Xvfb, D-Bus); `PADDOCK_APP` and
//! `PADDOCK_FLOOR_APP` name the two binaries.

#[path = "../bench/launch.rs"]
mod launch;
#[path = "../bench/order.rs"]
mod order;
#[path = "../bench/paddock.rs"]
mod paddock;
#[path = "../bench/procs.rs"]
mod procs;
#[path = "../bench/stream.rs"]
mod stream;
#[path = "../bench/wd.rs"]
mod wd;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_desktop_e2e::{
    Driver, IDLE_MODEL_URL, Result, TestHome, app_binary, bench_settings, testid,
};
use paddock_fake_model::FakeServer;
use procs::Snapshot;

/// Launches per app for spawn-to-page-loaded (after one warm-up each), and transcript openings.
const RUNS: usize = 7;
const TRANSCRIPT_RUNS: usize = 5;
/// Rounds of the memory measurements (each row's median round is shown).
const MEMORY_ROUNDS: usize = 3;
const TRANSCRIPT_EVENTS: usize = 10_000;
/// How long an app sits idle before its memory is read.
const SETTLE: Duration = Duration::from_secs(5);

/// The rows of the memory table, in order. "lowered" is the floor as Paddock runs on it
/// (`--lowered`: no GPU stack in the app process; with two windows, `--related`: one web
/// process for both); the plain floor is the stack as Tauri ships it.
const ROWS: [&str; 10] = [
    "floor, 1 window",
    "floor, 2 windows",
    "floor lowered, 1 window",
    "floor lowered, 2 windows (one web process)",
    "Paddock, picker",
    "floor under WebDriver, 1 window",
    "floor lowered under WebDriver, 1 window",
    "floor lowered under WebDriver, 2 windows",
    "Paddock under WebDriver, 1 project window",
    "Paddock under WebDriver, 2 project windows",
];
const FLOOR_1: usize = 0;
const FLOOR_2: usize = 1;
const FLOOR_LOW_1: usize = 2;
const FLOOR_LOW_2: usize = 3;
const PICKER: usize = 4;
const FLOOR_WD_1: usize = 5;
const FLOOR_LOW_WD_1: usize = 6;
const FLOOR_LOW_WD_2: usize = 7;
const PADDOCK_1: usize = 8;
const PADDOCK_2: usize = 9;

/// The start-up variants, launched in turn, with the floor's arguments (None: Paddock).
const STARTS: [(&str, Option<&[&str]>); 3] = [
    ("floor", Some(&[])),
    ("floor lowered", Some(&["--lowered"])),
    ("Paddock", None),
];
const LOWERED_2: [&str; 4] = ["--lowered", "--windows", "2", "--related"];
/// The floor beside Paddock's project windows (the WebDriver rows) sizes its windows like them.
const PROJECT_SIZED: &str = "--project-sized";

/// The parts of the benchmark; `desktop-bench [part…]` runs some (default: all).
const PARTS: [&str; 4] = ["start", "memory", "transcript", "stream"];

/// What every part measures with.
struct Bench {
    home: TestHome,
    fake: FakeServer,
    driver: Driver,
    app: PathBuf,
    floor: PathBuf,
    root: PathBuf,
    second: PathBuf,
    streamed: PathBuf,
    transcript: String,
    /// App processes already measured (each launch is found as the new one).
    seen_app: BTreeSet<u32>,
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<()> {
    let mut parts: Vec<String> = std::env::args().skip(1).collect();
    if let Some(bad) = parts.iter().find(|p| !PARTS.contains(&p.as_str())) {
        return Err(format!("unknown part {bad:?}: the parts are {}", PARTS.join(", ")).into());
    }
    if parts.is_empty() {
        parts = PARTS.iter().map(|p| (*p).to_owned()).collect();
    }
    let wanted = |part: &str| parts.iter().any(|p| p == part);
    let home = TestHome::new()?.as_users_run();
    let fake = FakeServer::start().await?;
    let idle = bench_settings(IDLE_MODEL_URL);
    let live = bench_settings(&format!("{}/v1", fake.url()));
    let root = home.project("bench", Some(&idle))?;
    let second = home.project("second", Some(&idle))?;
    let streamed = home.project("streamed", Some(&live))?;
    let transcript =
        paddock_desktop_e2e::transcript::write_session(&home.data_dir(), &root, TRANSCRIPT_EVENTS)?;
    let app = std::fs::canonicalize(app_binary())?;
    let floor = std::fs::canonicalize(PathBuf::from(
        std::env::var_os("PADDOCK_FLOOR_APP").ok_or("set PADDOCK_FLOOR_APP to the floor app")?,
    ))?;
    println!("Paddock: {}\nfloor:   {}", app.display(), floor.display());
    let placed = order::placement(&app)?;
    println!(
        "startup functions (src-tauri/startup-order.txt): {} of {} recorded are in the binary, \
         {:.1} MB of code in {:.1} MB of 64 KB blocks: {}",
        placed.found,
        placed.recorded,
        placed.bytes as f64 / 1e6,
        placed.mapped as f64 / 1e6,
        if placed.together() {
            "side by side"
        } else {
            "NOT side by side (see src-tauri/build.rs)"
        }
    );
    let driver = Driver::start(&home, "bench").await?;
    let mut b = Bench {
        home,
        fake,
        driver,
        app,
        floor,
        root,
        second,
        streamed,
        transcript,
        seen_app: BTreeSet::new(),
    };
    let mut report = Report::default();
    if wanted("start") {
        report.starts = starts(&b).await?;
    }
    if wanted("memory") {
        (report.rows, report.picker_gone) = memory(&mut b).await?;
    }
    if wanted("transcript") {
        (report.paints, report.opens) = transcript_opening(&mut b).await?;
    }
    if wanted("stream") {
        // Once: it takes tens of seconds.
        stream::script(&b.fake);
        let session = b.driver.launch().await?;
        let pid = procs::wait_new_pid(&b.app, &mut b.seen_app).await?;
        let frames = stream::measure(&session, pid, &b.streamed).await;
        session.quit().await?;
        report.frames = Some(frames?);
    }
    b.driver.stop().await?;
    print_report(&report);
    Ok(())
}

/// Spawn to page loaded, rotating which variant goes first; one warm-up launch each.
async fn starts(b: &Bench) -> Result<Vec<Vec<f64>>> {
    let (home, floor, app) = (&b.home, &b.floor, &b.app);
    let mut starts: Vec<Vec<f64>> = STARTS.iter().map(|_| Vec::new()).collect();
    for run in 0..=RUNS {
        let mut times = [0.0; STARTS.len()];
        for k in 0..STARTS.len() {
            let i = (run + k) % STARTS.len();
            let launched = match STARTS[i].1 {
                Some(args) => launch::floor(home, floor, args).await?,
                None => launch::paddock(home, app).await?,
            };
            times[i] = launched.loaded_ms;
            launched.stop().await?;
        }
        let shown: Vec<String> = STARTS
            .iter()
            .zip(times)
            .map(|((name, _), ms)| format!("{name} {ms:.0} ms"))
            .collect();
        let warm_up = if run == 0 { " (warm-up)" } else { "" };
        println!("launch {run}{warm_up}: {}", shown.join(", "));
        if run > 0 {
            for (all, ms) in starts.iter_mut().zip(times) {
                all.push(ms);
            }
        }
    }
    Ok(starts)
}

/// Idle memory, interleaved rounds; the WebDriver rows last in each round. Also says whether
/// the picker closed once a project was open.
async fn memory(b: &mut Bench) -> Result<(Vec<Vec<Snapshot>>, bool)> {
    let (home, floor, app) = (&b.home, &b.floor, &b.app);
    let floor_driver = Driver::start_for(home, "bench-floor", floor.clone()).await?;
    let mut seen_floor = BTreeSet::new();
    let mut rows: Vec<Vec<Snapshot>> = ROWS.iter().map(|_| Vec::new()).collect();
    let mut picker_gone = true;
    for round in 1..=MEMORY_ROUNDS {
        for (row, args) in [
            (FLOOR_1, &[][..]),
            (FLOOR_2, &["--windows", "2"][..]),
            (FLOOR_LOW_1, &["--lowered"][..]),
            (FLOOR_LOW_2, &LOWERED_2[..]),
        ] {
            let launched = launch::floor(home, floor, args).await?;
            rows[row].push(settled(launched.pid, &row_label(row, round)).await?);
            launched.stop().await?;
        }
        let launched = launch::paddock(home, app).await?;
        rows[PICKER].push(settled(launched.pid, &row_label(PICKER, round)).await?);
        launched.stop().await?;

        for (row, args) in [
            (FLOOR_WD_1, &[][..]),
            (FLOOR_LOW_WD_1, &["--lowered"][..]),
            (FLOOR_LOW_WD_2, &LOWERED_2[..]),
        ] {
            let args = [args, &[PROJECT_SIZED]].concat();
            let session = wd::floor_session(&floor_driver, &args).await?;
            let pid = procs::wait_new_pid(floor, &mut seen_floor).await?;
            rows[row].push(settled(pid, &row_label(row, round)).await?);
            tokio::time::timeout(Duration::from_secs(20), session.quit())
                .await
                .map_err(|_| "the floor's WebDriver session did not end")??;
        }

        let session = b.driver.launch().await?;
        let pid = procs::wait_new_pid(app, &mut b.seen_app).await?;
        paddock::open_from_picker(&session, &b.root).await?;
        session
            .wait_until("the picker closed itself", || async {
                Ok(paddock::window_count(&session).await? == 1)
            })
            .await
            .unwrap_or_else(|_| picker_gone = false);
        rows[PADDOCK_1].push(settled(pid, &row_label(PADDOCK_1, round)).await?);
        paddock::open_another(&session, &b.second).await?;
        session
            .wait_until("two project windows, no picker", || async {
                Ok(paddock::window_count(&session).await? == 2)
            })
            .await?;
        rows[PADDOCK_2].push(settled(pid, &row_label(PADDOCK_2, round)).await?);
        session.quit().await?;
        println!("memory round {round}/{MEMORY_ROUNDS} done");
    }
    floor_driver.stop().await?;
    Ok((rows, picker_gone))
}

/// Paddock alone: first paint under WebDriver and the transcript opening.
async fn transcript_opening(b: &mut Bench) -> Result<(Vec<f64>, Vec<paddock::Open>)> {
    let mut paints = Vec::new();
    let mut opens = Vec::new();
    for run in 1..=TRANSCRIPT_RUNS {
        let session = b.driver.launch().await?;
        let pid = procs::wait_new_pid(&b.app, &mut b.seen_app).await?;
        session.wait_for(&testid("project-path-input")).await?;
        let start = paddock::cold_start_ms(&session, pid).await?;
        paints.push(start.total);
        paddock::open_from_picker(&session, &b.root).await?;
        session.wait_for(&testid("session-item")).await?;
        let open = paddock::open_transcript_ms(&session, &b.transcript).await?;
        println!(
            "transcript run {run}: first paint {:.0} ms after process start (navigation at {:.0} \
             ms); open {:.0} ms ({} tool cards; load_session alone: whole {:.0} ms, last turns \
             {:.0} ms; after the click: asked {}, loaded {}, rebuilt {})",
            start.total,
            start.to_navigation,
            open.total,
            open.cards,
            open.load,
            open.load_tail,
            paddock::ms(open.marks[0]),
            paddock::ms(open.marks[1]),
            paddock::ms(open.marks[2]),
        );
        opens.push(open);
        session.quit().await?;
    }
    Ok((paints, opens))
}

/// Waits `SETTLE`, then reads the app's processes (`read`).
async fn settled(pid: u32, label: &str) -> Result<Snapshot> {
    tokio::time::sleep(SETTLE).await;
    read(pid, label)
}

/// The app's processes now; with `BENCH_SMAPS_DIR` set, also keeps their smaps there, named
/// after `label`.
fn read(pid: u32, label: &str) -> Result<Snapshot> {
    let snapshot = Snapshot::of(pid)?;
    if let Some(dir) = std::env::var_os("BENCH_SMAPS_DIR") {
        snapshot.save_smaps(Path::new(&dir), label)?;
    }
    Ok(snapshot)
}

/// The smaps label of a memory row's round: its name in letters, digits and dashes.
fn row_label(row: usize, round: usize) -> String {
    let name: String = ROWS[row]
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{name}.round{round}")
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

#[derive(Default)]
struct Report {
    /// Per `STARTS` variant.
    starts: Vec<Vec<f64>>,
    rows: Vec<Vec<Snapshot>>,
    picker_gone: bool,
    paints: Vec<f64>,
    opens: Vec<paddock::Open>,
    frames: Option<stream::Frames>,
}

fn verdict(met: bool) -> &'static str {
    if met { "met" } else { "NOT met" }
}

fn print_report(r: &Report) {
    println!("\n== Paddock vs the floor (minimal Tauri 2 app), release builds under Xvfb ==");
    if !r.starts.is_empty() {
        print_starts(r);
    }
    if !r.rows.is_empty() {
        print_memory(r);
    }
    if !r.opens.is_empty() {
        print_transcript(r);
    }
    if let Some(f) = &r.frames {
        print_stream(f);
    }
}

fn list(v: &[f64]) -> String {
    v.iter()
        .map(|d| format!("{d:.0}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn print_starts(r: &Report) {
    println!("spawn to main page loaded, no WebDriver ({RUNS} launches each, interleaved):");
    for ((name, _), times) in STARTS.iter().zip(&r.starts) {
        println!(
            "  {name:<24} median {:>4.0} ms  ({})",
            median(times),
            list(times)
        );
    }
    let floor_start = median(&r.starts[0]);
    let (lowered_start, paddock_start) = (median(&r.starts[1]), median(&r.starts[2]));
    println!(
        "  target: Paddock <= floor + 10 ms = {:.0} ms: {} ({:+.0} ms; {:+.0} ms against the \
         lowered floor)",
        floor_start + 10.0,
        verdict(paddock_start <= floor_start + 10.0),
        paddock_start - floor_start,
        paddock_start - lowered_start
    );
}

fn print_memory(r: &Report) {
    // Each row's round with the median total.
    let picked: Vec<Option<&Snapshot>> = r
        .rows
        .iter()
        .map(|snaps| {
            let mut sorted: Vec<&Snapshot> = snaps.iter().collect();
            sorted.sort_by(|a, b| a.total_mb().total_cmp(&b.total_mb()));
            sorted.get(sorted.len() / 2).copied()
        })
        .collect();
    let total = |i: usize| picked[i].map_or(f64::NAN, Snapshot::total_mb);
    println!(
        "\nidle PSS after {}s, MB (median of {MEMORY_ROUNDS} rounds; web = all web processes)",
        SETTLE.as_secs()
    );
    println!(
        "  {:<50} {:>6} {:>6} {:>10} {:>8} {:>6}  Mesa/LLVM mapped (its PSS)",
        "", "total", "app", "web (n)", "network", "other"
    );
    for (name, snap) in ROWS.iter().zip(&picked) {
        let Some(s) = snap else { continue };
        let (web, n) = s.by_kind("WebKitWeb");
        let (net, _) = s.by_kind("WebKitNet");
        println!(
            "  {name:<50} {:>6.0} {:>6.0} {:>6.0} ({n}) {net:>8.0} {:>6.0}  {}",
            s.total_mb(),
            s.app_mb(),
            web,
            s.other_mb(),
            s.mesa_summary()
        );
    }
    let foreign = r.rows.iter().flatten().map(|s| s.foreign_webkit).max();
    if let Some(n @ 1..) = foreign {
        println!(
            "  NOTE: up to {n} other processes with WebKit loaded ran during these readings; they \
             take a share of WebKit's pages, so the PSS above reads low: rerun on a quiet machine"
        );
    }
    let share = total(PADDOCK_1) - total(FLOOR_LOW_WD_1);
    println!(
        "\n  Paddock's picker above the floor (no WebDriver): {:+.0} MB ({:+.0} MB above the \
         lowered floor); WebDriver adds {:+.0} MB to the floor",
        total(PICKER) - total(FLOOR_1),
        total(PICKER) - total(FLOOR_LOW_1),
        total(FLOOR_WD_1) - total(FLOOR_1)
    );
    println!(
        "  lowering the floor: no GPU stack in the app process {:+.0} MB (under WebDriver \
         {:+.0} MB); two windows in one web process and no GPU stack {:+.0} MB against two \
         plain windows",
        total(FLOOR_LOW_1) - total(FLOOR_1),
        total(FLOOR_LOW_WD_1) - total(FLOOR_WD_1),
        total(FLOOR_LOW_2) - total(FLOOR_2)
    );
    let per_window = total(PADDOCK_2) - total(PADDOCK_1);
    println!("\ntargets:");
    println!(
        "  Paddock above the floor as it runs on it, 1 project window (both under WebDriver): \
         {share:+.0} MB (target <= 10): {}; above the plain floor {:+.0} MB",
        verdict(share <= 10.0),
        total(PADDOCK_1) - total(FLOOR_WD_1)
    );
    println!(
        "  each further project window: {per_window:+.0} MB (target <= 40): {}; the plain \
         floor's second window costs {:+.0} MB, the lowered floor's {:+.0} MB under WebDriver",
        verdict(per_window <= 40.0),
        total(FLOOR_2) - total(FLOOR_1),
        total(FLOOR_LOW_WD_2) - total(FLOOR_LOW_WD_1)
    );
    println!(
        "  picker gone once a project is open: {}",
        verdict(r.picker_gone)
    );
}

fn print_transcript(r: &Report) {
    let opens: Vec<f64> = r.opens.iter().map(|o| o.total).collect();
    let loads: Vec<f64> = r.opens.iter().map(|o| o.load).collect();
    let tails: Vec<f64> = r.opens.iter().map(|o| o.load_tail).collect();
    println!(
        "  open a {TRANSCRIPT_EVENTS}-event transcript: median {:.0} ms click to rendered \
         (load_session IPC alone: its last turns {:.0} ms, whole {:.0} ms; runs {}) (target <= \
         150): {}",
        median(&opens),
        median(&tails),
        median(&loads),
        list(&opens),
        verdict(median(&opens) <= 150.0)
    );
    println!(
        "  (for reference) first paint under WebDriver, process start to FCP: median {:.0} ms",
        median(&r.paints)
    );
}

fn print_stream(f: &stream::Frames) {
    println!(
        "  streamed answer of {} tokens ({} chars shown, streamed in {:.1} s): frame interval \
         over its last {:.0} s p50 {:.1} / p95 {:.1} / max {:.1} ms, {} of {} frames over \
         17.7 ms (whole stream: p95 {:.1}, max {:.1} ms, {} of {} over) (target <= 16 ms): {}",
        stream::TOKENS,
        f.chars,
        f.stream_ms / 1000.0,
        stream::END_WINDOW_MS / 1000.0,
        f.end.p50,
        f.end.p95,
        f.end.max,
        f.end.over_budget,
        f.end.frames,
        f.all.p95,
        f.all.max,
        f.all.over_budget,
        f.all.frames,
        verdict(f.end.p95 <= 17.7)
    );
    println!(
        "    (the same window idle before the prompt: p50 {:.1} / p95 {:.1} / max {:.1} ms, {} of \
         {} over)",
        f.idle.p50, f.idle.p95, f.idle.max, f.idle.over_budget, f.idle.frames
    );
    let parts = |s: &Snapshot| {
        let (web, _) = s.by_kind("WebKitWeb");
        let (net, _) = s.by_kind("WebKitNet");
        [s.total_mb(), s.app_mb(), web, net]
    };
    let before = parts(&f.before);
    for (snapshot, wait) in [(&f.after, SETTLE), (&f.later, stream::LATER)] {
        let shown: Vec<String> = ["total", "app", "web", "network"]
            .iter()
            .zip(before.iter().zip(parts(snapshot)))
            .map(|(name, (b, a))| format!("{name} {b:.0} -> {a:.0} MB ({:+.1})", a - b))
            .collect();
        println!(
            "  memory with the project window open, before the run and {} s after it ended: {}",
            wait.as_secs(),
            shown.join(", ")
        );
    }
}
