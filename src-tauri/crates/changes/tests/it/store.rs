//! The store itself: pruning, its size, and its privacy.

use std::os::unix::fs::PermissionsExt;

use paddock_changes::CheckpointError;

use crate::common::Fixture;

#[test]
fn prune_keeps_what_is_reachable_and_frees_the_rest() {
    let f = Fixture::new();
    f.write("shared.txt", "in both\n", 0o644);
    f.write("dir/a-only.txt", "only in a\n", 0o644);
    let first = f.listing();
    let a = f.snapshot();
    std::fs::remove_file(f.path("dir/a-only.txt")).unwrap();
    // Noise: stored as it is (compression cannot shrink it), so the sizes below are exact.
    let unique = noise(42, 100_000);
    f.write("dir/b-only.bin", &unique, 0o644);
    let b = f.snapshot();
    let used = f.store.disk_usage().unwrap();

    // Just recorded, b is kept though nothing names it (its run may still be going).
    assert_eq!(f.store.prune(std::slice::from_ref(&a.id)).unwrap(), 0);
    // A day later (the log of recent snapshots aged out):
    std::fs::write(f.store.dir().join("recent.log"), "").unwrap();
    assert_eq!(f.store.prune(&[a.id.clone(), b.id.clone()]).unwrap(), 0);
    let freed = f.store.prune(std::slice::from_ref(&a.id)).unwrap();
    assert!(freed >= 100_000, "freed {freed}");
    assert!(f.store.disk_usage().unwrap() <= used - freed + 1024);
    let err = f.store.changes(&a.id, &b.id).unwrap_err();
    assert!(
        matches!(err, CheckpointError::UnknownCheckpoint { .. }),
        "{err}"
    );

    // What is kept still restores, and the cache does not claim the pruned blob.
    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(f.listing(), first);
    std::fs::remove_file(f.path("dir/a-only.txt")).unwrap();
    f.write("dir/b-only.bin", &unique, 0o644);
    let again = f.snapshot();
    assert_eq!(again.id, b.id);
    assert!(f.store.has_object(&unique));
    assert!(matches!(
        f.store.prune(&["bad id".to_owned()]),
        Err(CheckpointError::BadId { .. })
    ));
}

#[test]
fn prune_frees_nothing_while_another_process_records() {
    let f = Fixture::new();
    f.write("old.bin", noise(7, 50_000), 0o644);
    f.snapshot();
    std::fs::remove_file(f.path("old.bin")).unwrap();
    let now = f.snapshot();
    std::fs::write(f.store.dir().join("recent.log"), "").unwrap();
    // Another process holds the store's lock as a snapshot does.
    let lock = std::fs::File::open(f.store.dir().join("lock")).unwrap();
    rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockShared).unwrap();
    assert_eq!(f.store.prune(std::slice::from_ref(&now.id)).unwrap(), 0);
    drop(lock);
    assert!(f.store.prune(std::slice::from_ref(&now.id)).unwrap() >= 50_000);
}

#[test]
fn disk_usage_grows_by_about_the_changed_bytes() {
    let f = Fixture::new();
    let content = |d: u64, i: u64, turn: u64| noise(d * 1_000 + i * 10 + turn, 10_000);
    for d in 0..10 {
        for i in 0..10 {
            f.write(&format!("d{d}/f{i}.bin"), content(d, i, 0), 0o644);
        }
    }
    f.snapshot();
    let before = f.store.disk_usage().unwrap();
    assert!(before >= 1_000_000, "{before}");
    for (d, i) in [(1, 2), (5, 5), (9, 0)] {
        f.write(&format!("d{d}/f{i}.bin"), content(d, i, 1), 0o644);
    }
    let snap = f.snapshot();
    let grown = f.store.disk_usage().unwrap() - before;
    // Three 10 kB blobs, three folder trees and the root tree; the index stays the same size.
    assert!((30_000..45_000).contains(&grown), "grew by {grown}");
    assert!(
        (30_000..45_000).contains(&snap.stored),
        "stored {}",
        snap.stored
    );
    // The journal names the three files: only they are read.
    assert_eq!(snap.hashed, 3);
    assert!(!snap.walked);
}

#[test]
fn store_files_are_private() {
    let f = Fixture::new();
    f.write("a.txt", "a\n", 0o644);
    let a = f.snapshot();
    f.write("a.txt", "b\n", 0o644);
    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    assert!(f.store_dir().join("journal.json").is_file());
    let mut seen = (0, 0);
    check(&f.store_dir(), &mut seen);
    assert!(seen.0 >= 3 && seen.1 >= 4, "{seen:?}");
    f.store.finish().unwrap();
}

fn check(dir: &std::path::Path, seen: &mut (usize, usize)) {
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "{}", dir.display());
    seen.0 += 1;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            check(&path, seen);
        } else {
            let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o600, "{}", path.display());
            seen.1 += 1;
        }
    }
}

/// Bytes no other seed gives (xorshift), so blobs never dedupe by accident.
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
