//! Issue 50, item 8: no process of a wall outlives the Paddock that started it, whenever that
//! Paddock dies.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::Duration;

use common::{ENGINES, Wall, XorShift};

/// Set in a parent process: `ENGINE:TAG`.
const PARENT_ENV: &str = "PADDOCK_OUTLIVE_PARENT";
const KILL_TEST: &str = "no_wall_outlives_a_paddock_killed_at_any_point_of_its_start";
/// How long what the kill should end may take to go.
const GRACE: Duration = Duration::from_millis(2000);
/// Fixed delays after "about to spawn": before bubblewrap or the helper has run at all,
/// through their set-up (bubblewrap's clone, its mounts, the helper's namespaces), to the
/// command starting.
const DELAYS_US: &[u64] = &[
    0, 50, 100, 250, 500, 750, 1_000, 1_500, 2_000, 2_500, 3_000, 3_500, 4_000, 5_000, 6_000,
    7_000, 8_000, 10_000, 12_000, 15_000, 20_000, 25_000, 30_000, 40_000, 60_000, 100_000,
];
/// Random delays besides, up to [`MAX_RANDOM`], skewed towards the first milliseconds.
const RANDOM_TRIALS: usize = 12;
const MAX_RANDOM: Duration = Duration::from_millis(100);

/// Where the parent (a stand-in for Paddock) is SIGKILLed.
#[derive(Debug, Clone, Copy)]
enum Point {
    /// This long after it said it is about to spawn (from before the wall is set up on).
    After(Duration),
    /// As soon as the spawn has returned.
    Spawned,
    /// Once the command runs (its long `sleep` is there).
    Running,
}

/// A parent process (this test binary started again: multi-threaded with a tokio runtime,
/// as Paddock is) starts `setsid sleep 600 & env -i setsid sleep 600 & sleep 600`
/// behind the real wall as the bash tool does (`Confinement::command`, its own process group,
/// piped output, from a task on a worker thread) and is SIGKILLed at one point of that
/// start: at fixed and random delays from just before the spawn, right after the spawn, and
/// while the command sleeps. Then no process of that call may be left: the launcher,
/// bubblewrap (both of its processes), the helper, bash, the sleeps, detached or not, with
/// their environment cleared or not. Each engine in turn (bubblewrap, the helper's own
/// namespaces, Landlock with the helper as reaper).
///
/// Fails on main (before this change), run with this test (42 kills per engine, two runs):
/// bubblewrap left bubblewrap, bash and the sleeps running under pid 1 after 26 and 23 kills
/// (it arms `--die-with-parent` only after its clone, its sandbox's init only after the
/// mounts); the namespaces helper after 9 and 3 (killed between its fork and its child's
/// death signal); Landlock after 40 and 40, every kill once the helper had started (it took
/// the SIGTERM of Paddock's death, then went on waiting for the command, which nothing ended).
/// Here: none, with about half of the kills before the command had started.
///
/// `PADDOCK_REQUIRE_SANDBOX=1` fails instead of skipping where bubblewrap cannot run;
/// `PADDOCK_OUTLIVE_SEED=N` repeats a run's random delays.
#[test]
fn no_wall_outlives_a_paddock_killed_at_any_point_of_its_start() {
    if let Ok(spec) = std::env::var(PARENT_ENV) {
        parent(&spec);
        return;
    }
    let mut rng = XorShift::from_env("PADDOCK_OUTLIVE_SEED");
    let mut points: Vec<Point> = DELAYS_US
        .iter()
        .map(|us| Point::After(Duration::from_micros(*us)))
        .collect();
    points.extend((0..RANDOM_TRIALS).map(|_| Point::After(MAX_RANDOM.mul_f64(rng.unit().powi(3)))));
    points.extend([
        Point::Spawned,
        Point::Running,
        Point::Spawned,
        Point::Running,
    ]);
    let mut failures = Vec::new();
    for (engine, _) in ENGINES {
        let mut ran = 0;
        for (trial, point) in points.iter().enumerate() {
            let tag = format!("{}x{trial}x{engine}", std::process::id());
            match run_trial(engine, &tag, *point) {
                Trial::Skipped(why) => {
                    assert!(!common::required(engine), "{engine} is required: {why}");
                    eprintln!("SKIPPED {engine}: {why}");
                    break;
                }
                Trial::Clean { ran: r } => ran += usize::from(r),
                Trial::Left(procs) => {
                    ran += 1;
                    failures.push(format!("{engine} killed at {point:?}: {procs:?}"));
                }
            }
        }
        eprintln!(
            "{engine}: {} kills, {ran} of them after the command had started",
            points.len()
        );
    }
    assert!(
        failures.is_empty(),
        "processes outlived their killed parent:\n{}",
        failures.join("\n")
    );
}

enum Trial {
    Skipped(String),
    /// Nothing left; `ran`: the command had started before the kill.
    Clean {
        ran: bool,
    },
    Left(Vec<String>),
}

fn run_trial(engine: &str, tag: &str, point: Point) -> Trial {
    let (mut parent, mut lines) = start_parent(engine, tag);
    match said(&mut lines) {
        Some(line) if line == "SPAWNING" => {}
        other => {
            let _ = parent.kill();
            let _ = parent.wait();
            return Trial::Skipped(other.unwrap_or_else(|| "the parent said nothing".into()));
        }
    }
    match point {
        Point::After(delay) => std::thread::sleep(delay),
        Point::Spawned => assert_eq!(said(&mut lines).as_deref(), Some("SPAWNED")),
        Point::Running => assert!(
            common::wait_for(tag, "sleep 600", Duration::from_secs(10)),
            "{engine}: the walled command never showed up"
        ),
    }
    parent.kill().unwrap();
    parent.wait().unwrap();
    drop(lines);
    match common::gone_within(tag, GRACE) {
        Ok(()) => Trial::Clean {
            ran: Wall::workspace(tag).join("started").exists(),
        },
        Err(left) => Trial::Left(left),
    }
}

/// This test binary again, as the parent for `engine`, and its lines.
fn start_parent(engine: &str, tag: &str) -> (Child, Lines<BufReader<ChildStdout>>) {
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", KILL_TEST, "--nocapture", "--test-threads=1"])
        .env(PARENT_ENV, format!("{engine}:{tag}"))
        .env(
            "PADDOCK_SANDBOX_HELPER",
            env!("CARGO_BIN_EXE_paddock-sandbox-helper"),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let lines = BufReader::new(parent.stdout.take().unwrap()).lines();
    (parent, lines)
}

/// The parent's next word (libtest's own output between them skipped).
fn said(lines: &mut Lines<BufReader<ChildStdout>>) -> Option<String> {
    const WORDS: [&str; 3] = ["SPAWNING", "SPAWNED", "SKIP"];
    lines
        .map_while(Result::ok)
        .find(|l| WORDS.iter().any(|w| l.starts_with(w)))
}

/// The parent: starts one command behind the wall from a task, says when, and waits.
fn parent(spec: &str) {
    let (engine, tag) = spec.split_once(':').unwrap();
    let engine = ENGINES.iter().find(|(name, _)| *name == engine).unwrap().1;
    let wall = match Wall::prepare(engine, tag) {
        Ok(wall) => wall,
        Err(why) => {
            println!("\nSKIP {why}");
            return;
        }
    };
    let line = format!(
        ": > started; setsid sleep 600 & env -i setsid /bin/bash -c 'exec -a TAG-{tag} sleep 600' \
         & sleep 600"
    );
    let mut cmd = wall.bash(&line, tag);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let task = tokio::spawn(async move {
            println!("\nSPAWNING");
            let mut child = cmd.spawn().unwrap();
            println!("SPAWNED");
            let _ = tokio::time::timeout(Duration::from_secs(60), child.wait()).await;
        });
        let _ = task.await;
    });
}

/// The wall's first process checks, once its death signal is armed, that its parent is still
/// the Paddock process that started it: started by any other (as when that Paddock died
/// between its fork and the arming, and the child went to pid 1 or a subreaper), it starts
/// nothing, says why, and exits 125. Here a shell in between stands for the new parent.
///
/// Fails on main: there the first process (bubblewrap or the helper) had no idea which
/// process should be its parent, so the command ran and created its file.
#[test]
fn a_wall_started_for_a_paddock_that_is_gone_starts_nothing() {
    if std::env::var(PARENT_ENV).is_ok() {
        return;
    }
    for (name, engine) in ENGINES {
        let wall = match Wall::prepare(engine, &format!("orphan-{name}-{}", std::process::id())) {
            Ok(wall) => wall,
            Err(why) => {
                assert!(!common::required(name), "{name} is required: {why}");
                eprintln!("SKIPPED {name}: {why}");
                continue;
            }
        };
        let ran = wall.ws.join("ran");
        let line = format!("touch {}", ran.display());
        let argv = wall
            .confinement
            .argv("/bin/bash".as_ref(), &["-c".as_ref(), line.as_ref()]);
        let out = Command::new("/bin/sh")
            .arg("-c")
            .arg("\"$@\"; exit $?")
            .arg("sh")
            .args(&argv)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!ran.exists(), "{name}: the command ran");
        assert_eq!(out.status.code(), Some(125), "{name}: {stderr}");
        assert!(stderr.contains("is gone"), "{name}: {stderr}");
    }
}
