//! Objects shared with git: what HEAD's commit holds is not copied, everything else is;
//! a restore after `git gc --prune=now` puts every byte back; nothing in the repository's
//! config runs; a repository that could block or mislead a reader is not shared with.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use paddock_changes::CheckpointError;

use crate::common::{Fixture, mkfifo, sh};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The workspace outside `.git` (which git changes, and a restore leaves alone).
fn files(f: &Fixture) -> BTreeMap<String, String> {
    let mut all = f.listing();
    all.retain(|path, _| path != ".git" && !path.starts_with(".git/"));
    all
}

fn has_object(dir: &Path, id: &str) -> bool {
    Command::new("git")
        .args(["cat-file", "-e", id])
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .unwrap()
        .success()
}

/// A repository at the workspace root with 40 committed text files.
fn repo(f: &Fixture) {
    git(&f.ws, &["init", "-q"]);
    for i in 0..40 {
        let text: String = (0..300).map(|l| format!("file {i} line {l}\n")).collect();
        f.write(&format!("src/f{i}.txt"), text, 0o644);
    }
    git(&f.ws, &["add", "-A"]);
    git(&f.ws, &["commit", "-q", "-m", "base"]);
}

#[test]
fn what_head_holds_is_shared_and_the_rest_copied() {
    let f = Fixture::new();
    repo(&f);
    f.write("untracked.txt", "not in git\n", 0o644);
    f.write("staged.txt", "only in the index\n", 0o644);
    git(&f.ws, &["add", "staged.txt"]);
    f.write("src/f0.txt", "changed since the commit\n", 0o644);
    let first = files(&f);
    let snap = f.snapshot();
    assert_eq!(snap.shared, 39, "{snap:?}");
    assert_eq!(f.store.shared_with_git(), 39);
    let bytes = snap.bytes;
    let usage = f.store.disk_usage().unwrap();
    assert!(
        usage * 10 < bytes,
        "store {usage} bytes for a {bytes}-byte tree"
    );

    sh(&f.ws, "rm -r src && echo x > untracked.txt");
    f.store
        .restore(&f.guard, &snap.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(files(&f), first);
}

#[test]
fn a_restore_after_history_is_rewritten_and_gc_pruned_puts_every_byte_back() {
    let f = Fixture::new();
    repo(&f);
    f.write("staged.txt", "staged, never committed\n", 0o644);
    git(&f.ws, &["add", "staged.txt"]);
    let first = files(&f);
    let s1 = f.snapshot();
    let old_blob = git(&f.ws, &["rev-parse", "HEAD:src/f1.txt"]);
    let staged_blob = git(&f.ws, &["rev-parse", ":staged.txt"]);

    // The user rewrites the commit: S1's blobs are left to the reflog.
    sh(
        &f.ws,
        "for i in $(seq 0 39); do echo rewritten $i > src/f$i.txt; done; rm staged.txt",
    );
    git(&f.ws, &["add", "-A"]);
    git(&f.ws, &["commit", "-q", "--amend", "-m", "rewritten"]);
    // Paddock's next snapshot sees HEAD leave the history it shared with: it copies.
    let s2 = f.snapshot();
    assert_eq!(
        f.store.shared_with_git(),
        40,
        "only the new HEAD's blobs stay shared"
    );
    // Then the history is purged for good.
    git(&f.ws, &["reflog", "expire", "--expire=now", "--all"]);
    git(&f.ws, &["gc", "-q", "--prune=now"]);
    assert!(!has_object(&f.ws, &old_blob) && !has_object(&f.ws, &staged_blob));

    f.store
        .restore(&f.guard, &s1.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(files(&f), first);
    f.store
        .restore(&f.guard, &s2.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(
        std::fs::read_to_string(f.path("src/f1.txt")).unwrap(),
        "rewritten 1\n"
    );
}

#[test]
fn gc_alone_never_removes_what_a_checkpoint_shares() {
    let f = Fixture::new();
    repo(&f);
    let first = files(&f);
    let s1 = f.snapshot();
    // HEAD moves elsewhere and gc prunes, before Paddock looks again: the reflog keeps
    // the old commit's objects.
    git(&f.ws, &["checkout", "-q", "--orphan", "other"]);
    git(&f.ws, &["rm", "-q", "-r", "--cached", "."]);
    sh(&f.ws, "rm -r src && echo other > other.txt");
    git(&f.ws, &["add", "-A"]);
    git(&f.ws, &["commit", "-q", "-m", "other"]);
    git(&f.ws, &["branch", "-q", "-D", "main"]);
    git(&f.ws, &["gc", "-q", "--prune=now"]);
    f.store
        .restore(&f.guard, &s1.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(files(&f), first);
}

#[test]
fn history_purged_before_paddock_looks_again_is_refused_and_nothing_changes() {
    let f = Fixture::new();
    repo(&f);
    let s1 = f.snapshot();
    sh(
        &f.ws,
        "for i in $(seq 0 39); do echo rewritten $i > src/f$i.txt; done",
    );
    git(&f.ws, &["commit", "-q", "-a", "--amend", "-m", "rewritten"]);
    git(&f.ws, &["reflog", "expire", "--expire=now", "--all"]);
    git(&f.ws, &["gc", "-q", "--prune=now"]);
    let before = files(&f);
    let err = f
        .store
        .restore(&f.guard, &s1.id, serde_json::Value::Null)
        .unwrap_err();
    assert!(
        matches!(err, CheckpointError::Incomplete { count: 40, .. }),
        "{err}"
    );
    assert_eq!(files(&f), before);
}

#[test]
fn nothing_in_the_repository_runs() {
    let f = Fixture::new();
    repo(&f);
    let marker = f.tmp.path().join("ran");
    let touch = format!("touch {}", marker.display());
    for (key, value) in [
        ("core.fsmonitor", touch.as_str()),
        ("core.hooksPath", "hooks"),
        ("filter.evil.smudge", touch.as_str()),
        ("filter.evil.clean", touch.as_str()),
        ("filter.evil.process", touch.as_str()),
        ("core.sshCommand", touch.as_str()),
        ("diff.external", touch.as_str()),
    ] {
        git(&f.ws, &["config", key, value]);
    }
    f.write(".gitattributes", "* filter=evil diff=evil\n", 0o644);
    for hook in [
        "post-checkout",
        "pre-commit",
        "reference-transaction",
        "post-index-change",
    ] {
        f.write(
            &format!(".git/hooks/{hook}"),
            format!("#!/bin/sh\n{touch}\n"),
            0o755,
        );
    }
    let _ = std::fs::remove_file(&marker);
    let s1 = f.snapshot();
    sh(&f.ws, "rm -r src");
    f.snapshot();
    f.store
        .restore(&f.guard, &s1.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert!(f.store.shared_with_git() > 0);
    assert!(!marker.exists(), "something in the repository ran");
}

#[test]
fn a_repository_with_a_fifo_for_an_object_is_not_shared_with_and_nothing_blocks() {
    let f = Fixture::new();
    repo(&f);
    git(&f.ws, &["gc", "-q"]);
    mkfifo(&f.path(".git/objects/pack/pack-trap.idx"));
    let (tx, rx) = std::sync::mpsc::channel();
    let guard = f.guard.clone();
    let dir = f.store_dir();
    std::thread::spawn(move || {
        let store = paddock_changes::CheckpointStore::open(dir).unwrap();
        let _ = tx.send(store.snapshot(&guard).map(|s| (s.shared, s.files)));
    });
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the snapshot blocked");
    assert_eq!(got.unwrap(), (0, 40));
}

/// A session's worktree is a clone borrowing the project's objects (`alternates`).
fn borrowing(f: &Fixture, source: &Path) {
    git(source, &["init", "-q"]);
    for i in 0..40 {
        std::fs::create_dir_all(source.join("src")).unwrap();
        std::fs::write(source.join(format!("src/f{i}.txt")), format!("file {i}\n")).unwrap();
    }
    git(source, &["add", "-A"]);
    git(source, &["commit", "-q", "-m", "base"]);
    git(source, &["gc", "-q"]);
    std::fs::remove_dir(&f.ws).unwrap();
    git(
        source.parent().unwrap(),
        &[
            "clone",
            "-q",
            "--shared",
            source.to_str().unwrap(),
            f.ws.to_str().unwrap(),
        ],
    );
}

#[test]
fn a_clone_that_borrows_objects_shares_them_and_a_fifo_in_the_lender_is_refused() {
    let f = Fixture::new();
    let lender = tempfile::tempdir().unwrap();
    let source = lender.path().join("project");
    std::fs::create_dir(&source).unwrap();
    borrowing(&f, &source);
    assert!(f.path(".git/objects/info/alternates").exists());
    let snap = f.snapshot();
    assert_eq!(snap.shared, 40, "read through the alternate: {snap:?}");

    let f = Fixture::new();
    let lender = tempfile::tempdir().unwrap();
    let source = lender.path().join("project");
    std::fs::create_dir(&source).unwrap();
    borrowing(&f, &source);
    mkfifo(&source.join(".git/objects/pack/pack-trap.idx"));
    let (tx, rx) = std::sync::mpsc::channel();
    let guard = f.guard.clone();
    let dir = f.store_dir();
    std::thread::spawn(move || {
        let store = paddock_changes::CheckpointStore::open(dir).unwrap();
        let _ = tx.send(store.snapshot(&guard).map(|s| (s.shared, s.files)));
    });
    let got = rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .expect("the snapshot blocked");
    assert_eq!(got.unwrap(), (0, 40));
}
