//! Issue 50, item 8: a Paddock that starts ends the walls an earlier Paddock left running,
//! and nothing else.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]

mod common;

use std::ffi::OsString;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{ENGINES, TAG_ENV, Wall};
use paddock_sandbox::{Engine, OWNER_ENV, sweep_walls_left_behind};

/// Set in the stand-in for another Paddock that runs now: the tag of its wall.
const OTHER_ENV: &str = "PADDOCK_SWEEP_OTHER";
const TEST: &str = "a_starting_paddock_ends_the_walls_of_a_gone_one_and_nothing_else";
const LINE: &str = "setsid sleep 600 & sleep 600";
const GRACE: Duration = Duration::from_secs(3);

/// Walls an earlier Paddock left (each engine's, bubblewrap and the namespaces with a
/// descendant that cleared its environment and left the session; a process of a Landlock
/// wall whose reaper was killed; a helper still waiting; an owner whose pid now belongs to
/// another process) are killed by `sweep_walls_left_behind`, while the walls of Paddocks that
/// run (this one, and another process), processes without the mark, the mark only in a
/// command line, a mark from another PID namespace and a malformed one are left alone.
///
/// Fails on main: there was no sweep, nor any mark saying which Paddock a wall belongs to;
/// with the sweep made to do nothing, the first wall of the gone Paddock is still there.
#[test]
fn a_starting_paddock_ends_the_walls_of_a_gone_one_and_nothing_else() {
    if let Ok(tag) = std::env::var(OTHER_ENV) {
        other_paddock(&tag);
        return;
    }
    let me = std::process::id();
    let gone = gone_owner();
    let ns = pid_namespace();
    let mut doomed: Vec<(String, Child)> = Vec::new();
    let mut kept: Vec<(String, Child)> = Vec::new();
    let tag = |what: &str| format!("sweep{me}-{what}");

    for (name, engine) in ENGINES {
        let wall = match Wall::prepare(engine, &tag(name)) {
            Ok(wall) => wall,
            Err(why) => {
                assert!(!common::required(name), "{name} is required: {why}");
                eprintln!("SKIPPED {name}: {why}");
                continue;
            }
        };
        // A detached descendant with its environment cleared: it goes with its wall's PID
        // namespace (there is none under Landlock alone).
        let line = match engine {
            Engine::Landlock => LINE.to_owned(),
            _ => format!(
                "{LINE} & env -i setsid /bin/bash -c 'exec -a TAG-{} sleep 600'",
                tag(name)
            ),
        };
        // Started as an earlier Paddock did, and outlived it: marked with the gone owner.
        let argv = without_owner(wall.argv(&line));
        let mut cmd = wall.std_command(&argv, &tag(name));
        cmd.env(OWNER_ENV, gone.to_string());
        doomed.push((tag(name), cmd.spawn().unwrap()));
        // The same wall of this Paddock, which runs.
        let own = format!("{name}-own");
        let child = wall.std_command(&wall.argv(LINE), &tag(&own)).spawn();
        kept.push((tag(&own), child.unwrap()));
    }

    let marked = |what: &str, owner: Option<String>, args: &[&str]| {
        let mut cmd = Command::new(args[0]);
        cmd.args(&args[1..])
            .env(TAG_ENV, tag(what))
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .process_group(0);
        if let Some(owner) = owner {
            cmd.env(OWNER_ENV, owner);
        }
        (tag(what), cmd.spawn().unwrap())
    };
    let gone_s = gone.to_string();
    let recycled = format!("{ns}-{me}-{}", start_time(me) + 1);
    let elsewhere = format!("{}-{}-{}", ns + 1, gone.1, gone.2);
    doomed.extend([
        marked("orphan", Some(gone_s.clone()), &["sleep", "600"]),
        marked("recycled", Some(recycled), &["sleep", "600"]),
        marked(
            "helper",
            None,
            &[
                "bash",
                "-c",
                "exec -a /x/paddock-sandbox-helper bash -c 'read -r _' _ \"$@\"",
                "_",
                "--parent",
                &gone_s,
                "--launch",
                "--",
                "sleep",
            ],
        ),
    ]);
    let in_line = format!("sleep 600; : {OWNER_ENV}={gone_s}");
    kept.extend([
        marked("unmarked", None, &["sleep", "600"]),
        marked("in-line", None, &["bash", "-c", &in_line]),
        marked("elsewhere", Some(elsewhere), &["sleep", "600"]),
        marked("malformed", Some("x-1-2".into()), &["sleep", "600"]),
    ]);
    let other = other_paddock_running(&tag("other"));

    for (tag, _) in doomed.iter().chain(&kept) {
        let what = if tag.ends_with("helper") {
            "paddock-sandbox-helper"
        } else {
            "sleep 600"
        };
        assert!(
            common::wait_for(tag, what, Duration::from_secs(20)),
            "{tag} never started"
        );
    }
    assert!(common::wait_for(
        &tag("other"),
        "sleep 600",
        Duration::from_secs(10)
    ));
    let before: Vec<(String, Vec<String>)> = kept
        .iter()
        .map(|(t, _)| t.clone())
        .chain([tag("other")])
        .map(|t| {
            let now = common::tagged(&t);
            (t, now)
        })
        .collect();

    let marked_pids: Vec<i32> = doomed
        .iter()
        .flat_map(|(t, _)| common::tagged(t))
        .filter_map(|p| p.split(':').next()?.parse().ok())
        .collect();

    let killed = sweep_walls_left_behind();

    let mut failures = Vec::new();
    for (tag, _) in &doomed {
        if let Err(left) = common::gone_within(tag, GRACE) {
            failures.push(format!("{tag} outlived the sweep: {left:?}"));
        }
    }
    for (tag, was) in &before {
        let now = common::tagged(tag);
        if now.len() < was.len() {
            failures.push(format!("{tag} was swept: {was:?} -> {now:?}"));
        }
    }
    eprintln!("swept {} processes", killed.len());
    let strangers: Vec<&i32> = killed.iter().filter(|p| !marked_pids.contains(p)).collect();
    if !strangers.is_empty() {
        failures.push(format!("killed what no gone wall holds: {strangers:?}"));
    }
    for (tag, _) in &kept {
        common::kill_tagged(tag);
    }
    drop(other);
    common::kill_tagged(&tag("other"));
    for (_, mut child) in doomed.into_iter().chain(kept) {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An owner that ran and is gone: `(pidns, pid, start)`, shown as the mark shows it.
struct Gone(u64, u32, u64);

impl std::fmt::Display for Gone {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.0, self.1, self.2)
    }
}

/// A process started, looked at and ended (a crashed Paddock).
fn gone_owner() -> Gone {
    let mut child = Command::new("sleep").arg("600").spawn().unwrap();
    let pid = child.id();
    let start = start_time(pid);
    child.kill().unwrap();
    child.wait().unwrap();
    Gone(pid_namespace(), pid, start)
}

fn pid_namespace() -> u64 {
    std::fs::metadata("/proc/self/ns/pid").unwrap().ino()
}

fn start_time(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 1..];
    after.split_whitespace().nth(19).unwrap().parse().unwrap()
}

/// The command line as an earlier Paddock started it: the wall without being told its owner
/// (bubblewrap without the launcher, the helper without `--parent`).
fn without_owner(argv: Vec<OsString>) -> Vec<OsString> {
    if let Some(at) = argv.iter().position(|a| a == "--launch") {
        return argv[at + 2..].to_vec();
    }
    let at = argv.iter().position(|a| a == "--parent").unwrap();
    let mut argv = argv;
    argv.drain(at..at + 2);
    argv
}

/// Another Paddock that runs now (this test binary again) with a wall of its own.
struct Other(Child);

impl Drop for Other {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn other_paddock_running(tag: &str) -> Other {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST, "--nocapture", "--test-threads=1"])
        .env(OTHER_ENV, tag)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let ready = BufReader::new(out)
        .lines()
        .map_while(Result::ok)
        .any(|l| l.contains("RUNNING"));
    assert!(ready, "the other Paddock did not start its wall");
    Other(child)
}

/// The other Paddock: a wall with the strongest engine here, then waits to be killed.
fn other_paddock(tag: &str) {
    let wall = ENGINES
        .iter()
        .find_map(|(_, engine)| Wall::prepare(*engine, tag).ok())
        .unwrap();
    let mut child = wall.std_command(&wall.argv(LINE), tag).spawn().unwrap();
    println!("\nRUNNING");
    let _ = child.wait();
}
