//! Checkpoints of a real tree: the cargo registry's unpacked sources (the crates in name
//! order until 27,000 files), copied into a git repository with one commit; the workspace
//! is the repository. Measured the way Paddock recorded before issue 38 (every snapshot
//! walks, every object copied) and as it does now (journal, objects shared with git,
//! copies compressed): the first snapshot's time and store growth, then turns that each
//! change three files (median, p90, max per turn), and a rewind to the first checkpoint.
//! Targets: per turn <= 20 ms median, first snapshot <= 1.5 s, store growth for the first
//! snapshot <= 10 % of the tree.
//!
//! The tree: `PADDOCK_BENCH_TREE` names a clean git repository to use as it is; otherwise
//! it is built once under `$CARGO_TARGET_DIR/paddock-bench/registry-27k` (or `target/`)
//! from `$CARGO_HOME/registry/src/*/` (the crates of any Rust project's build) with the
//! `git` command, and reused while `git status` says it is clean.
//! Run with `cargo bench -p paddock-changes --bench real_tree`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use paddock_changes::{CheckpointStore, StoreOptions};
use paddock_guard::PathGuard;

const FILES: usize = 27_000;
const CHANGED_PER_TURN: usize = 3;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@example.invalid",
        ])
        .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Every regular file beneath `dir`, sorted (links and others left out).
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files_under(&entry.path(), out);
        } else if kind.is_file() {
            out.push(entry.path());
        }
    }
}

fn registry_sources() -> PathBuf {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
        .expect("CARGO_HOME or HOME");
    let src = home.join("registry/src");
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&src)
        .unwrap_or_else(|e| panic!("{}: {e}", src.display()))
        .flatten()
        .map(|e| e.path())
        .collect();
    indexes.sort();
    indexes.into_iter().next().expect("no registry sources")
}

/// The repository to measure: given, or built once and reused while clean.
fn tree() -> PathBuf {
    if let Some(given) = std::env::var_os("PADDOCK_BENCH_TREE") {
        return PathBuf::from(given);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../target"));
    let repo = target.join("paddock-bench/registry-27k");
    if repo.join(".git").is_dir() && git(&repo, &["status", "--porcelain"]).trim().is_empty() {
        return repo;
    }
    let _ = std::fs::remove_dir_all(&repo);
    std::fs::create_dir_all(&repo).unwrap();
    let sources = registry_sources();
    let mut crates: Vec<PathBuf> = std::fs::read_dir(&sources)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    crates.sort();
    let mut copied = 0;
    for krate in crates {
        if copied >= FILES {
            break;
        }
        let mut files = Vec::new();
        files_under(&krate, &mut files);
        let name = krate.file_name().unwrap();
        for file in files {
            let to = repo.join(name).join(file.strip_prefix(&krate).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&file, &to).unwrap();
            copied += 1;
        }
    }
    println!(
        "built {} ({copied} files from {})",
        repo.display(),
        sources.display()
    );
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "-A", "-f"]);
    git(&repo, &["commit", "-q", "-m", "registry sources"]);
    repo
}

/// CPU time this thread has used (the machine is shared: wall time alone says little).
fn cpu() -> Duration {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    let ns = text
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Duration::from_nanos(ns)
}

fn du(dir: &Path) -> u64 {
    let out = Command::new("du").args(["-sk"]).arg(dir).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .next()
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

struct Run {
    label: &'static str,
    options: StoreOptions,
    turns: usize,
}

fn measure(ws: &Path, files: &[PathBuf], run: &Run, tree_bytes: u64) {
    let tmp = tempfile::tempdir_in(ws.parent().unwrap()).unwrap();
    let store_dir = tmp.path().join("store");
    let store = CheckpointStore::open_with(store_dir.clone(), run.options).unwrap();
    let guard = PathGuard::new(ws);
    let (started, cpu_started) = (Instant::now(), cpu());
    let first = store.snapshot(&guard).unwrap();
    let (first_time, first_cpu) = (started.elapsed(), cpu() - cpu_started);
    let usage = store.disk_usage().unwrap();
    println!(
        "[{}] first snapshot: {:.0} ms ({:.0} ms on a CPU); {} files, {:.1} MB; {} shared with \
         git; store {:.1} MB ({:.1} % of the tree; {:.1} MB on disk by du)",
        run.label,
        ms(first_time),
        ms(first_cpu),
        first.files,
        first.bytes as f64 / 1e6,
        first.shared,
        usage as f64 / 1e6,
        usage as f64 * 100.0 / tree_bytes as f64,
        du(&store_dir) as f64 / 1e6,
    );
    let turns: usize = std::env::var("PADDOCK_BENCH_TURNS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(run.turns)
        .max(1);
    let run = &Run {
        label: run.label,
        options: run.options,
        turns,
    };
    let mut times = Vec::with_capacity(run.turns);
    let mut cpus = Vec::with_capacity(run.turns);
    let mut read = 0;
    for turn in 0..run.turns {
        for k in 0..CHANGED_PER_TURN {
            let file = &files[(turn * 7919 + k * 104_729) % files.len()];
            let mut text = std::fs::read(file).unwrap();
            text.extend_from_slice(format!("\n// turn {turn} ({})\n", run.label).as_bytes());
            std::fs::write(file, text).unwrap();
        }
        let (started, cpu_started) = (Instant::now(), cpu());
        let snap = store.snapshot(&guard).unwrap();
        times.push(started.elapsed());
        cpus.push(cpu() - cpu_started);
        read += snap.hashed;
    }
    times.sort();
    cpus.sort();
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    let stats = store.journal_stats();
    println!(
        "[{}] per turn ({} turns, {CHANGED_PER_TURN} files changed each): median {:.2} ms \
         ({:.2} ms on a CPU), p90 {:.2} ms, max {:.2} ms; files read per turn {:.1}; walks {}, \
         from the journal {}, cross-checks {}, disagreements {}",
        run.label,
        run.turns,
        ms(at(0.5)),
        ms(cpus[cpus.len() / 2]),
        ms(at(0.9)),
        ms(times[times.len() - 1]),
        read as f64 / run.turns as f64,
        stats.walks,
        stats.incremental,
        stats.cross_checks,
        stats.disagreements,
    );
    let started = Instant::now();
    let applied = store
        .restore(&guard, &first.id, serde_json::Value::Null)
        .unwrap();
    store.finish().unwrap();
    println!(
        "[{}] rewind to the first checkpoint: {} paths in {:.0} ms",
        run.label,
        applied.len(),
        ms(started.elapsed())
    );
}

fn main() {
    let ws = tree();
    let mut files = Vec::new();
    files_under(&ws, &mut files);
    files.retain(|f| !f.starts_with(ws.join(".git")));
    let tree_bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    println!(
        "tree: {} ({} files, {:.0} MB, one commit)",
        ws.display(),
        files.len(),
        tree_bytes as f64 / 1e6
    );
    // Text files only are changed (appending a line).
    let texts: Vec<PathBuf> = files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "rs"))
        .cloned()
        .collect();
    let runs = [
        Run {
            label: "before (walk, copy)",
            options: StoreOptions {
                journal: false,
                cross_check_every: 0,
                share_with_git: false,
            },
            turns: 30,
        },
        Run {
            label: "now",
            options: StoreOptions::default(),
            turns: 100,
        },
    ];
    // PADDOCK_BENCH_ONLY=now (or "before") runs one of the two.
    let only = std::env::var("PADDOCK_BENCH_ONLY").unwrap_or_default();
    for run in runs
        .iter()
        .filter(|r| only.is_empty() || r.label.starts_with(&only))
    {
        measure(&ws, &texts, run, tree_bytes);
    }
    assert!(
        git(&ws, &["status", "--porcelain"]).trim().is_empty(),
        "the rewinds left the tree as it was committed"
    );
}
