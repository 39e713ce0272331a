//! What Paddock's own wall costs its git (issue 50, class 1): `commit` of 20 changed files
//! and the `merge` that lands them (fetch into the project, fast-forward of its checked-out
//! branch), bare and behind the wall, on a generated repository of 27,000 files.
//! `cargo bench -p paddock-host --bench own_git`. Target: the wall adds <= 100 ms to each.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use paddock_host::OwnWall;
use paddock_worktree::{CreateOptions, Layout, Wall};

const FILES: usize = 27_000;
const CHANGED: usize = 20;
const RUNS: usize = 5;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@example.invalid"])
        .args(["-c", "gc.auto=0"])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn generated(to: &Path) {
    for i in 0..FILES {
        let dir = to.join(format!("d{}/e{}", i % 97, i % 13));
        std::fs::create_dir_all(&dir).unwrap();
        let text: String = (0..40)
            .map(|l| format!("file {i} line {l} of a generated tree\n"))
            .collect();
        std::fs::write(dir.join(format!("f{i}.rs")), text).unwrap();
    }
}

fn median(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// Median (min, max) seconds of commit and of merge with `wall`.
fn measure(
    project: &Path,
    root: &Path,
    label: &str,
    wall: Wall,
) -> ((f64, f64, f64), (f64, f64, f64)) {
    let layout = Layout {
        records: root.join(format!("records-{label}")),
        checkouts: root.join(format!("checkouts-{label}")),
        wall,
    };
    let (mut commits, mut merges) = (Vec::new(), Vec::new());
    for run in 0..RUNS {
        let options = CreateOptions {
            name: Some(format!("{label}-{run}")),
            ..CreateOptions::default()
        };
        let (mut wt, _) = paddock_worktree::create(project, &layout, &options).unwrap();
        for i in 0..CHANGED {
            let f = wt
                .checkout()
                .join(format!("d{}/e{}/f{i}.rs", i % 97, i % 13));
            std::fs::write(f, format!("changed by {label} run {run}\n")).unwrap();
        }
        let started = Instant::now();
        wt.commit("bench").unwrap().unwrap();
        commits.push(started.elapsed().as_secs_f64());
        std::fs::write(wt.checkout().join("more.txt"), format!("{label}{run}")).unwrap();
        let started = Instant::now();
        wt.merge(Some("main"), "bench").unwrap();
        merges.push(started.elapsed().as_secs_f64());
    }
    (median(commits), median(merges))
}

fn main() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = dir.path().canonicalize().unwrap();
    let project = root.join("project");
    std::fs::create_dir(&project).unwrap();
    generated(&project);
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "base"]);
    git(&project, &["gc", "-q"]);
    let (bare_commit, bare_merge) = measure(&project, &root, "bare", None);
    let (wall_commit, wall_merge) = measure(&project, &root, "walled", OwnWall::shared());
    for (what, bare, walled) in [
        ("commit", bare_commit, wall_commit),
        ("merge", bare_merge, wall_merge),
    ] {
        println!(
            "own_git/{what}: bare median {:.3} s (min {:.3}, max {:.3}); walled median {:.3} s (min {:.3}, max {:.3}); the wall adds {:+.0} ms (target <= 100 ms) over {RUNS} runs on {FILES} files",
            bare.0,
            bare.1,
            bare.2,
            walled.0,
            walled.1,
            walled.2,
            (walled.0 - bare.0) * 1000.0
        );
    }
}
