//! The grep tool against `rg`, and the glob tool against `rg --files`, on the same generated
//! tree with the same result counts. Criterion times each side; a closing table prints the
//! medians of interleaved runs and the ratios (targets: grep <= 1.2x, glob <= 1.5x).
//! `rg` is Debian's `ripgrep` package; without it only the tools are timed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::Criterion;
use paddock_guard::PathGuard;
use paddock_tools::glob::{self, GlobInput};
use paddock_tools::grep::{self, GrepInput};

/// Folders at each of the two levels: DIRS x DIRS leaf folders.
const DIRS: usize = 20;
/// Files per leaf folder.
const FILES_PER_DIR: usize = 25;
/// Lines per file.
const LINES_PER_FILE: usize = 200;
/// Every this many lines (counted across the tree) holds the needle.
const NEEDLE_EVERY: usize = 331;
const PATTERN: &str = r"needle_[0-9]+_x";
/// Interleaved runs for the closing table.
const TABLE_RUNS: usize = 15;

/// Writes the tree; returns (files, needles, bytes).
fn generate(root: &Path) -> (usize, usize, usize) {
    let mut files = 0;
    let mut bytes = 0;
    let mut needles = 0;
    let mut line_no = 0usize;
    for a in 0..DIRS {
        for b in 0..DIRS {
            let dir = root.join(format!("pkg{a:02}/mod{b:02}"));
            std::fs::create_dir_all(&dir).unwrap();
            for f in 0..FILES_PER_DIR {
                let mut body = String::with_capacity(LINES_PER_FILE * 48);
                for l in 0..LINES_PER_FILE {
                    line_no += 1;
                    if line_no.is_multiple_of(NEEDLE_EVERY) {
                        needles += 1;
                        body.push_str(&format!("    let v{l} = needle_{line_no}_x(); // hit\n"));
                    } else {
                        body.push_str(&format!(
                            "    let value_{l} = compute({a}, {b}, {f}, {l});\n"
                        ));
                    }
                }
                bytes += body.len();
                std::fs::write(dir.join(format!("file{f:02}.rs")), body).unwrap();
                files += 1;
            }
        }
    }
    (files, needles, bytes)
}

fn grep_input(limit: usize) -> GrepInput {
    GrepInput {
        pattern: PATTERN.to_owned(),
        path: None,
        include: None,
        ignore_case: false,
        literal: false,
        files_only: false,
        limit: Some(limit),
    }
}

fn glob_input(limit: usize) -> GlobInput {
    GlobInput {
        pattern: "**/*".to_owned(),
        path: None,
        limit: Some(limit),
    }
}

fn run_grep_tool(guard: &PathGuard) -> usize {
    let out = grep::grep(guard, &grep_input(grep::MAX_LIMIT)).unwrap();
    out.lines().filter(|l| l.contains(":")).count()
}

fn run_glob_tool(guard: &PathGuard) -> usize {
    let out = glob::glob(guard, &glob_input(glob::MAX_LIMIT)).unwrap();
    out.lines().filter(|l| l.ends_with(".rs")).count()
}

/// rg with the same walking rules as the tools: hidden files included, .gitignore honoured
/// outside git repositories too.
fn rg(root: &Path, args: &[&str]) -> usize {
    let out = Command::new("rg")
        .args(["--hidden", "--no-require-git", "--no-messages"])
        .args(args)
        .current_dir(root)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).lines().count()
}

fn run_grep_rg(root: &Path) -> usize {
    rg(root, &["-n", "--no-heading", PATTERN, "."])
}

fn run_glob_rg(root: &Path) -> usize {
    rg(root, &["--files", "."])
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Medians of interleaved runs, so both sides see the same cache and machine load.
fn compare(name: &str, tool: impl Fn() -> usize, rg: impl Fn() -> usize, target: f64) {
    let (mut t_tool, mut t_rg) = (Vec::new(), Vec::new());
    for _ in 0..TABLE_RUNS {
        let start = Instant::now();
        tool();
        t_tool.push(start.elapsed());
        let start = Instant::now();
        rg();
        t_rg.push(start.elapsed());
    }
    let (tool_ms, rg_ms) = (median(t_tool), median(t_rg));
    let ratio = tool_ms.as_secs_f64() / rg_ms.as_secs_f64();
    println!(
        "{name}: tool {:.1} ms, rg {:.1} ms, ratio {ratio:.2}x (target <= {target}x){}",
        tool_ms.as_secs_f64() * 1000.0,
        rg_ms.as_secs_f64() * 1000.0,
        if ratio <= target {
            ""
        } else {
            "  ABOVE TARGET"
        }
    );
}

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (files, needles, bytes) = generate(&root);
    println!(
        "tree: {files} files in {} folders, {} lines, ~{} MB, {needles} matches",
        DIRS * DIRS,
        files * LINES_PER_FILE,
        bytes / 1_000_000
    );
    let guard = PathGuard::new(&root);
    assert_eq!(run_grep_tool(&guard), needles, "grep tool count");
    assert_eq!(run_glob_tool(&guard), files, "glob tool count");
    let have_rg = Command::new("rg").arg("--version").output().is_ok();
    if have_rg {
        assert_eq!(run_grep_rg(&root), needles, "rg count");
        assert_eq!(run_glob_rg(&root), files, "rg --files count");
    } else {
        println!("rg not found (apt-get install ripgrep): timing the tools alone");
    }

    let mut c = Criterion::default()
        .sample_size(20)
        .measurement_time(Duration::from_secs(5))
        .configure_from_args();
    c.bench_function("grep/tool", |b| b.iter(|| run_grep_tool(&guard)));
    c.bench_function("glob/tool", |b| b.iter(|| run_glob_tool(&guard)));
    if have_rg {
        c.bench_function("grep/rg", |b| b.iter(|| run_grep_rg(&root)));
        c.bench_function("glob/rg --files", |b| b.iter(|| run_glob_rg(&root)));
    }
    c.final_summary();

    if have_rg {
        compare(
            "grep vs rg",
            || run_grep_tool(&guard),
            || run_grep_rg(&root),
            1.2,
        );
        compare(
            "glob vs rg --files",
            || run_glob_tool(&guard),
            || run_glob_rg(&root),
            1.5,
        );
    }
}
