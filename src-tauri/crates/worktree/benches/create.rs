//! Time to a ready worktree (clone sharing the objects, checkout, copy of ignored files;
//! setup excluded) on a repository of ~27,000 files, and the disk it uses beyond the
//! checked-out files. The tree is the cargo registry's sources when present (a real one),
//! else (or with `PADDOCK_BENCH_GENERATED=1`) a generated tree of as many ~1.5 KB files. `cargo bench -p paddock-worktree`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use paddock_worktree::{CreateOptions, Layout};

const FILES: usize = 27_000;
const MAX_FILE: u64 = 256 * 1024;
const RUNS: usize = 5;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@example.invalid",
            "-c",
            "gc.auto=0",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

fn registry() -> Option<PathBuf> {
    let src = dirs_home()?.join(".cargo/registry/src");
    std::fs::read_dir(src)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .next()
}

fn dirs_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(|h| {
            PathBuf::from(h)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default()
        })
        .filter(|p| p.join(".cargo").is_dir())
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
}

fn copy_tree(from: &Path, to: &Path, left: &mut usize) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        if *left == 0 {
            return;
        }
        let Ok(meta) = e.path().symlink_metadata() else {
            continue;
        };
        let name = e.file_name();
        if name == ".git" || name == ".cargo-ok" {
            continue;
        }
        if meta.is_dir() {
            copy_tree(&e.path(), &to.join(&name), left);
        } else if meta.is_file() && meta.len() <= MAX_FILE {
            std::fs::create_dir_all(to).unwrap();
            std::fs::copy(e.path(), to.join(&name)).unwrap();
            *left -= 1;
        }
    }
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

fn du(path: &Path) -> u64 {
    let out = Command::new("du")
        .args(["-sk", "--apparent-size"])
        .arg(path)
        .output()
        .unwrap();
    let kb: u64 = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    kb * 1024
}

fn du_blocks(path: &Path) -> u64 {
    let out = Command::new("du").args(["-sk"]).arg(path).output().unwrap();
    let kb: u64 = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    kb * 1024
}

fn main() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    // PADDOCK_BENCH_GENERATED=1: the generated tree (smaller files) even where the registry is.
    let generated_only = std::env::var_os("PADDOCK_BENCH_GENERATED").is_some();
    let source = match registry().filter(|_| !generated_only) {
        Some(reg) => {
            let mut left = FILES;
            copy_tree(&reg, &project, &mut left);
            format!("cargo registry sources ({})", reg.display())
        }
        None => {
            generated(&project);
            "a generated tree".to_owned()
        }
    };
    // What copy brings: an ignored .env and a small node_modules.
    std::fs::write(project.join(".gitignore"), ".env\nnode_modules/\n").unwrap();
    std::fs::write(project.join(".env"), "TOKEN=local\n").unwrap();
    for i in 0..200 {
        let d = project.join(format!("node_modules/pkg{i}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("index.js"), format!("module.exports = {i};\n")).unwrap();
    }
    git(&project, &["init", "-q", "-b", "main"]);
    git(&project, &["add", "-A"]);
    git(&project, &["commit", "-q", "-m", "base"]);
    git(&project, &["gc", "-q"]);
    let files = String::from_utf8(
        Command::new("git")
            .args(["ls-files"])
            .current_dir(&project)
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap()
    .lines()
    .count();
    let layout = Layout {
        records: dir.path().join("records"),
        checkouts: dir.path().join("checkouts"),
        wall: None,
    };
    let mut times = Vec::new();
    let mut last = None;
    for run in 0..RUNS {
        let options = CreateOptions {
            name: Some(format!("bench-{run}")),
            copy: vec![".env".into(), "node_modules".into()],
            ..CreateOptions::default()
        };
        // Each run starts with nothing waiting to be written back (the disk is a VM's).
        Command::new("sync").status().unwrap();
        let started = Instant::now();
        let (wt, copied) = paddock_worktree::create(&project, &layout, &options).unwrap();
        times.push(started.elapsed().as_secs_f64());
        assert_eq!(copied.files, 201);
        last = Some(wt);
    }
    times.sort_by(f64::total_cmp);
    let wt = last.unwrap();
    let checkout = wt.checkout();
    let git_dir = du_blocks(&checkout.join(".git"));
    let total = du_blocks(checkout);
    let project_git = du_blocks(&project.join(".git"));
    println!("worktree/create: {files} tracked files from {source}");
    println!(
        "worktree/create: ready in median {:.3} s (min {:.3}, max {:.3}) over {RUNS} runs (target <= 2 s)",
        times[RUNS / 2],
        times[0],
        times[RUNS - 1]
    );
    println!(
        "worktree/create: checkout {:.1} MB on disk ({:.1} MB apparent); its .git {:.1} MB (index, refs; objects borrowed from the project's {:.1} MB)",
        total as f64 / 1e6,
        du(checkout) as f64 / 1e6,
        git_dir as f64 / 1e6,
        project_git as f64 / 1e6
    );
}
