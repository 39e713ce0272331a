//! The composer's `@` list on a real tree of ~28,000 files (the cargo registry's sources):
//! the walk that builds the list, then what each keystroke costs (a fuzzy match over the
//! kept list) as a user types a few names. Target: ≤ 50 ms per keystroke.
//! `cargo bench -p paddock-host --bench mentions` (set `PADDOCK_BENCH_TREE` for another tree).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use paddock_guard::PathGuard;
use paddock_host::mentions::MentionIndex;

const RUNS: usize = 5;
const TYPED: [&str; 4] = [
    "serde_json/src/value/mod.rs",
    "tokio/src/runtime/mod.rs",
    "Cargo.toml",
    "readme",
];

fn tree() -> PathBuf {
    if let Some(dir) = std::env::var_os("PADDOCK_BENCH_TREE") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
    let src = home.join(".cargo/registry/src");
    std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .max_by_key(|p| std::fs::read_dir(p).map(|d| d.count()).unwrap_or(0))
        .unwrap_or(src)
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let root = tree().canonicalize().unwrap();
    let guard = PathGuard::new(&root);
    let mut builds = Vec::new();
    let mut index = None;
    for _ in 0..RUNS {
        let start = Instant::now();
        index = Some(MentionIndex::build(&guard).unwrap());
        builds.push(start.elapsed());
    }
    let index = index.unwrap();
    println!(
        "tree {}: {} files and folders listed{}",
        root.display(),
        index.len(),
        if index.truncated { " (cut)" } else { "" }
    );
    println!(
        "walk (once, then every 10 s in the background): median {:?}",
        median(builds)
    );
    let mut all = Vec::new();
    for name in TYPED {
        let mut worst = Duration::ZERO;
        for end in 1..=name.len() {
            let query = &name[..end];
            let times: Vec<Duration> = (0..RUNS)
                .map(|_| {
                    let start = Instant::now();
                    let found = index.search(query, 20);
                    std::hint::black_box(found);
                    start.elapsed()
                })
                .collect();
            let m = median(times);
            worst = worst.max(m);
            all.push(m);
        }
        let top = index.search(name, 1);
        println!(
            "typing {name:?}: slowest keystroke {worst:?}; first match {:?}",
            top.first().map(|c| c.path.as_str())
        );
    }
    all.sort();
    let p95 = all[(all.len() * 95 / 100).min(all.len() - 1)];
    println!(
        "per keystroke over {} keystrokes: median {:?}, p95 {p95:?}, max {:?} (target <= 50 ms)",
        all.len(),
        all[all.len() / 2],
        all[all.len() - 1]
    );
}
