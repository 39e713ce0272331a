//! What checkpoints leave out: ignored folders (not ignored files), .git and .paddock,
//! too-large and special files; bad ignore files are reported, never waited on.

use std::os::unix::fs::{FileTypeExt, symlink};
use std::sync::mpsc;
use std::time::Duration;

use paddock_changes::{MAX_FILE_BYTES, SkipReason, Snapshot};

use crate::common::{Fixture, listing, mkfifo};

#[test]
fn ignored_folders_are_left_out_and_alone_while_ignored_files_are_kept() {
    let f = Fixture::new();
    f.write(".gitignore", "target/\n.env\ngen*/\n!gen-keep/\n", 0o644);
    f.write(".env", "SECRET=1\n", 0o600);
    f.write("target/debug/app", "binary", 0o755);
    f.write("gen1/x.txt", "generated\n", 0o644);
    f.write("gen-keep/y.txt", "whitelisted\n", 0o644);
    f.write("sub/.gitignore", "local/\n", 0o644);
    f.write("sub/local/z.txt", "ignored below sub\n", 0o644);
    f.write("other/local/w.txt", "kept: the rule is sub's\n", 0o644);
    f.write(".ignore", "scratch/\n", 0o644);
    f.write("scratch/s.txt", "ignored by .ignore\n", 0o644);
    f.write(".git/info/exclude", "excluded/\n", 0o644);
    f.write(".git/HEAD", "ref: refs/heads/main\n", 0o644);
    f.write(".paddock/settings.json", "{}\n", 0o644);
    f.write("excluded/e.txt", "by the repo's exclude\n", 0o644);
    let a = f.snapshot();
    let paths = f.paths(&a.id);
    for kept in [
        ".env",
        "gen-keep/y.txt",
        "other/local/w.txt",
        "sub/.gitignore",
    ] {
        assert!(
            paths.iter().any(|p| p == kept),
            "{kept} missing from {paths:?}"
        );
    }
    for left in [
        "target",
        "gen1",
        "sub/local",
        "scratch",
        "excluded",
        ".git",
        ".paddock",
    ] {
        assert!(
            !paths
                .iter()
                .any(|p| p == left || p.starts_with(&format!("{left}/"))),
            "{left} kept: {paths:?}"
        );
    }
    assert!(a.skipped.is_empty(), "{:?}", a.skipped);

    // Restore puts .env back and leaves the ignored folders as they are now.
    f.write(".env", "SECRET=changed\n", 0o600);
    f.write("target/debug/app", "rebuilt", 0o755);
    f.write("target/new.o", "object", 0o644);
    f.write("gen1/x.txt", "regenerated\n", 0o644);
    // A folder the checkpoint does not have, holding an ignored folder: its kept files go,
    // the folder stays because of what it holds.
    f.write("tmp/file.txt", "goes\n", 0o644);
    f.write("tmp/target/junk", "stays\n", 0o644);
    let ignored_before = listing(&f.path("target"));
    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path(".env")).unwrap(),
        "SECRET=1\n"
    );
    assert_eq!(listing(&f.path("target")), ignored_before);
    assert_eq!(
        std::fs::read_to_string(f.path("gen1/x.txt")).unwrap(),
        "regenerated\n"
    );
    assert!(!f.path("tmp/file.txt").exists());
    assert_eq!(
        std::fs::read_to_string(f.path("tmp/target/junk")).unwrap(),
        "stays\n"
    );
    assert_eq!(
        std::fs::read_to_string(f.path(".git/HEAD")).unwrap(),
        "ref: refs/heads/main\n"
    );
}

/// Snapshots in a thread: a hang fails the test instead of stalling it.
fn snapshot_within(f: &Fixture, limit: Duration) -> Snapshot {
    let (tx, rx) = mpsc::channel();
    let guard = f.guard.clone();
    let store = paddock_changes::CheckpointStore::open(f.store_dir()).unwrap();
    std::thread::spawn(move || {
        let _ = tx.send(store.snapshot(&guard));
    });
    rx.recv_timeout(limit)
        .expect("the snapshot hung on a hostile ignore file")
        .unwrap()
}

#[test]
fn hostile_ignore_files_neither_hang_nor_count_and_are_reported() {
    let f = Fixture::new();
    mkfifo(&f.path(".gitignore"));
    f.write("sub/keep.txt", "k\n", 0o644);
    symlink("/dev/zero", f.path("sub/.gitignore")).unwrap();
    f.write("big/.ignore", "x\n".repeat(600_000), 0o644);
    f.write("big/x", "kept: the ignore file was not used\n", 0o644);
    f.write("bad/.gitignore", b"\xff\xfe not text\n", 0o644);
    let snap = snapshot_within(&f, Duration::from_secs(2));
    let bad: Vec<&str> = snap
        .skipped
        .iter()
        .filter(|s| matches!(s.reason, SkipReason::BadIgnoreFile { .. }))
        .map(|s| s.path.as_str())
        .collect();
    for path in [
        ".gitignore",
        "bad/.gitignore",
        "big/.ignore",
        "sub/.gitignore",
    ] {
        assert!(
            bad.contains(&path),
            "{path} not reported: {:?}",
            snap.skipped
        );
    }
    // The FIFO itself is not kept either; the link is kept as a link.
    assert!(
        snap.skipped
            .iter()
            .any(|s| s.path == ".gitignore" && s.reason == SkipReason::Special)
    );
    let paths = f.paths(&snap.id);
    assert!(paths.contains(&"big/x".to_owned()) && paths.contains(&"sub/.gitignore".to_owned()));
}

#[test]
fn too_large_and_special_files_are_reported_and_left_alone_by_restore() {
    let f = Fixture::new();
    f.write("small.txt", "s\n", 0o644);
    let big = f.path("data/big.bin");
    f.write("data/big.bin", "", 0o644);
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_FILE_BYTES + 1)
        .unwrap();
    mkfifo(&f.path("pipe"));
    f.write("was-a-dir/inner.txt", "inner\n", 0o644);
    let a = f.snapshot();
    assert!(a.skipped.iter().any(|s| s.path == "data/big.bin"
        && s.reason
            == SkipReason::TooLarge {
                bytes: MAX_FILE_BYTES + 1
            }));
    assert!(
        a.skipped
            .iter()
            .any(|s| s.path == "pipe" && s.reason == SkipReason::Special)
    );
    assert!(a.skipped.iter().any(|s| s.notice().contains("too large")));
    assert_eq!(
        f.paths(&a.id),
        ["data", "small.txt", "was-a-dir", "was-a-dir/inner.txt"]
    );

    // Changed after the checkpoint: a rewind leaves both as they are.
    std::fs::File::options()
        .write(true)
        .open(&big)
        .unwrap()
        .set_len(MAX_FILE_BYTES + 2)
        .unwrap();
    f.write("small.txt", "changed\n", 0o644);
    // A folder of the checkpoint is now a file the checkpoints do not keep: it stays, and
    // so does everything else the restore could not put beneath it.
    std::fs::remove_dir_all(f.path("was-a-dir")).unwrap();
    mkfifo(&f.path("was-a-dir"));
    let applied = f
        .store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    let applied: Vec<&str> = applied.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(applied, ["small.txt"]);
    f.store.finish().unwrap();
    assert_eq!(std::fs::read_to_string(f.path("small.txt")).unwrap(), "s\n");
    assert_eq!(std::fs::metadata(&big).unwrap().len(), MAX_FILE_BYTES + 2);
    assert!(
        std::fs::symlink_metadata(f.path("pipe"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(
        std::fs::symlink_metadata(f.path("was-a-dir"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
}
