//! Checkpoints of a 10,000-file, 100 MB workspace (100 folders of 100 files of 10 kB, in
//! two levels): the first snapshot, then 100 turns that each change three files and
//! snapshot (median, p90 and max per turn; store growth), `changes()` between the first and
//! the last snapshot, and restoring the first one. Target: 50 ms per turn after the first.
//! Run with `cargo bench -p paddock-changes --bench checkpoint`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use paddock_changes::CheckpointStore;
use paddock_guard::PathGuard;

const TOP: usize = 10;
const SUB: usize = 10;
const FILES: usize = 100;
const FILE_BYTES: usize = 10_000;
const TURNS: usize = 100;
const CHANGED_PER_TURN: usize = 3;
/// Past the store's racy window, so the first snapshot's stamps are trusted.
const SETTLE: Duration = Duration::from_millis(2_100);

/// Bytes no other seed gives (xorshift), so no two files share a blob.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn file_path(ws: &Path, n: usize) -> PathBuf {
    let dir = n / FILES;
    ws.join(format!("m{}/s{}/f{}.dat", dir / SUB, dir % SUB, n % FILES))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1_000.0
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let total = TOP * SUB * FILES;
    for n in 0..total {
        let path = file_path(&ws, n);
        if n % FILES == 0 {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        }
        std::fs::write(&path, noise(n as u64, FILE_BYTES)).unwrap();
    }
    std::thread::sleep(SETTLE);
    let guard = PathGuard::new(&ws);
    let store = CheckpointStore::open(tmp.path().join("store")).unwrap();

    let started = Instant::now();
    let first = store.snapshot(&guard).unwrap();
    let first_time = started.elapsed();
    let base_usage = store.disk_usage().unwrap();
    println!(
        "workspace: {} files, {:.1} MB in {} folders",
        first.files,
        first.bytes as f64 / 1e6,
        TOP * SUB + TOP
    );
    println!(
        "first snapshot: {:.1} ms ({} files read, {:.1} MB stored)",
        ms(first_time),
        first.hashed,
        first.stored as f64 / 1e6
    );

    let mut times = Vec::with_capacity(TURNS);
    let mut last = first.id.clone();
    let mut hashed = 0;
    for turn in 0..TURNS {
        for k in 0..CHANGED_PER_TURN {
            let n = (turn * 7919 + k * 104_729) % total;
            let seed = ((turn + 1) * total + n) as u64;
            std::fs::write(file_path(&ws, n), noise(seed, FILE_BYTES)).unwrap();
        }
        let started = Instant::now();
        let snap = store.snapshot(&guard).unwrap();
        times.push(started.elapsed());
        hashed += snap.hashed;
        last = snap.id;
    }
    let growth = store.disk_usage().unwrap() - base_usage;
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q).ceil() as usize).saturating_sub(1)];
    println!(
        "per turn ({TURNS} turns, {CHANGED_PER_TURN} files changed each): median {:.2} ms, p90 {:.2} ms, max {:.2} ms (files read per turn: {:.1} on average)",
        ms(at(0.5)),
        ms(at(0.9)),
        ms(times[times.len() - 1]),
        hashed as f64 / TURNS as f64
    );
    println!(
        "store growth over {TURNS} turns: {:.2} MB ({:.1} kB per turn)",
        growth as f64 / 1e6,
        growth as f64 / 1e3 / TURNS as f64
    );

    let started = Instant::now();
    let changes = store.changes(&first.id, &last).unwrap();
    println!(
        "changes(first, last): {} paths in {:.1} ms",
        changes.len(),
        ms(started.elapsed())
    );

    let started = Instant::now();
    let applied = store
        .restore(&guard, &first.id, serde_json::Value::Null)
        .unwrap();
    let restore_time = started.elapsed();
    store.finish().unwrap();
    println!(
        "restore(first): {} paths in {:.1} ms",
        applied.len(),
        ms(restore_time)
    );
    assert_eq!(store.snapshot(&guard).unwrap().id, first.id);
}
