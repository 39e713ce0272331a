//! Snapshot, change the workspace in every way a turn can, snapshot again: the changes are
//! listed exactly, and restoring either snapshot puts every byte, mode and link back.

use std::os::unix::fs::symlink;

use paddock_changes::CheckpointError;
use paddock_protocol::{ChangeKind, DiffBody, ModeChange};

use crate::common::{Fixture, chmod};

fn first_state(f: &Fixture) {
    f.write("a.txt", "one\ntwo\nthree\n", 0o644);
    f.write("keep.txt", "kept\n", 0o600);
    f.write("del.txt", "bye\n", 0o644);
    f.write("script.sh", "#!/bin/sh\necho hi\n", 0o644);
    f.write("gone/x.txt", "x\n", 0o644);
    f.write("gone/sub/y.bin", [0u8, 1, 2, 3], 0o644);
    f.write("src/lib.rs", "fn main() {}\n", 0o644);
    for dir in ["gone/sub", "gone", "src"] {
        chmod(&f.path(dir), 0o755);
    }
}

fn second_state(f: &Fixture) {
    f.write("a.txt", "one\n2\nthree\n", 0o644);
    f.write("new/deep/er/n.txt", "new\n", 0o640);
    for dir in ["new", "new/deep", "new/deep/er"] {
        chmod(&f.path(dir), 0o750);
    }
    std::fs::remove_file(f.path("del.txt")).unwrap();
    chmod(&f.path("script.sh"), 0o755);
    symlink("a.txt", f.path("link")).unwrap();
    f.mkdir("empty", 0o700);
    std::fs::remove_dir_all(f.path("gone")).unwrap();
}

#[test]
fn changes_list_every_kind_of_change_and_restore_undoes_and_redoes_them() {
    let f = Fixture::new();
    first_state(&f);
    let first_listing = f.listing();
    let a = f.snapshot();
    second_state(&f);
    let second_listing = f.listing();
    let b = f.snapshot();
    assert_ne!(a.id, b.id);

    let changes = f.store.changes(&a.id, &b.id).unwrap();
    let got: Vec<(&str, ChangeKind)> = changes.iter().map(|c| (c.path.as_str(), c.kind)).collect();
    use ChangeKind::{Created, Deleted, Modified};
    assert_eq!(
        got,
        [
            ("a.txt", Modified),
            ("del.txt", Deleted),
            ("empty", Created),
            ("gone", Deleted),
            ("gone/sub", Deleted),
            ("gone/sub/y.bin", Deleted),
            ("gone/x.txt", Deleted),
            ("link", Created),
            ("new", Created),
            ("new/deep", Created),
            ("new/deep/er", Created),
            ("new/deep/er/n.txt", Created),
            ("script.sh", Modified),
        ]
    );
    let by = |p: &str| changes.iter().find(|c| c.path == p).unwrap();
    let edit = by("a.txt");
    assert_eq!((edit.added, edit.removed, edit.mode), (1, 1, None));
    assert!(matches!(&edit.diff, DiffBody::Text { hunks } if hunks.len() == 1));
    let mode = |old, new| Some(ModeChange { old, new });
    assert_eq!(by("del.txt").mode, mode(Some(0o644), None));
    assert_eq!(by("del.txt").removed, 1);
    assert_eq!(by("empty").diff, DiffBody::Folder);
    assert_eq!(by("empty").mode, mode(None, Some(0o700)));
    assert_eq!(by("gone").diff, DiffBody::Folder);
    assert!(matches!(
        by("gone/sub/y.bin").diff,
        DiffBody::Binary {
            old_bytes: 4,
            new_bytes: 0
        }
    ));
    assert_eq!(
        by("link").diff,
        DiffBody::Link {
            old: None,
            new: Some("a.txt".to_owned())
        }
    );
    assert_eq!(by("new/deep/er/n.txt").mode, mode(None, Some(0o640)));
    assert_eq!(by("new/deep/er/n.txt").added, 1);
    let exec = by("script.sh");
    assert_eq!(exec.mode, mode(Some(0o644), Some(0o755)));
    assert_eq!(exec.diff, DiffBody::Text { hunks: vec![] });

    // Back to the first state, byte for byte and mode for mode.
    let applied = f
        .store
        .restore(&f.guard, &a.id, serde_json::json!({"n": 1}))
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(f.listing(), first_listing);
    let mut paths: Vec<&str> = applied.iter().map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    let mut expected: Vec<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    expected.sort_unstable();
    assert_eq!(paths, expected);
    assert_eq!(f.snapshot().id, a.id);

    // And the undo: forward again.
    f.store
        .restore(&f.guard, &b.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(f.listing(), second_listing);
    assert_eq!(f.snapshot().id, b.id);
}

#[test]
fn a_change_of_kind_is_a_deletion_and_a_creation_both_ways() {
    let f = Fixture::new();
    f.write("x", "file\n", 0o644);
    f.write("y/inner.txt", "in\n", 0o644);
    chmod(&f.path("y"), 0o755);
    f.write("z", "target\n", 0o644);
    let before = f.listing();
    let a = f.snapshot();
    std::fs::remove_file(f.path("x")).unwrap();
    f.write("x/now-a-dir.txt", "d\n", 0o644);
    chmod(&f.path("x"), 0o755);
    std::fs::remove_dir_all(f.path("y")).unwrap();
    f.write("y", "now a file\n", 0o644);
    std::fs::remove_file(f.path("z")).unwrap();
    symlink("x", f.path("z")).unwrap();
    let after = f.listing();
    let b = f.snapshot();
    let got: Vec<(String, ChangeKind)> = f
        .store
        .changes(&a.id, &b.id)
        .unwrap()
        .into_iter()
        .map(|c| (c.path, c.kind))
        .collect();
    let want = [
        ("x", ChangeKind::Deleted),
        ("x", ChangeKind::Created),
        ("x/now-a-dir.txt", ChangeKind::Created),
        ("y", ChangeKind::Deleted),
        ("y", ChangeKind::Created),
        ("y/inner.txt", ChangeKind::Deleted),
        ("z", ChangeKind::Deleted),
        ("z", ChangeKind::Created),
    ];
    let want: Vec<(String, ChangeKind)> = want.iter().map(|(p, k)| (p.to_string(), *k)).collect();
    assert_eq!(got, want);
    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(f.listing(), before);
    f.store
        .restore(&f.guard, &b.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(f.listing(), after);
}

#[test]
fn change_of_and_summary_agree_with_changes() {
    let f = Fixture::new();
    f.write("d/a.txt", "a\n", 0o644);
    f.write("b.txt", "b\n", 0o644);
    let a = f.snapshot();
    f.write("d/a.txt", "a\nmore\n", 0o644);
    std::fs::remove_file(f.path("b.txt")).unwrap();
    let b = f.snapshot();
    let changes = f.store.changes(&a.id, &b.id).unwrap();
    let summary = f.store.summary(&a.id, &b.id).unwrap();
    assert_eq!(summary.len(), changes.len());
    for (s, c) in summary.iter().zip(&changes) {
        assert_eq!(
            (&s.path, s.kind, s.added, s.removed),
            (&c.path, c.kind, c.added, c.removed)
        );
        assert_eq!(
            f.store.change_of(&a.id, &b.id, &c.path).unwrap().as_ref(),
            Some(c)
        );
    }
    assert_eq!(f.store.change_of(&a.id, &b.id, "d").unwrap(), None);
    assert_eq!(
        f.store.change_of(&a.id, &b.id, "nothing/here").unwrap(),
        None
    );
    assert_eq!(f.store.change_of(&a.id, &a.id, "d/a.txt").unwrap(), None);
    assert!(f.store.changes(&a.id, &a.id).unwrap().is_empty());
}

#[test]
fn restore_refuses_unknown_and_incomplete_checkpoints_before_touching_anything() {
    let f = Fixture::new();
    f.write("a.txt", "a\n", 0o644);
    f.write("sub/b.txt", "only in a\n", 0o644);
    let a = f.snapshot();
    std::fs::remove_dir_all(f.path("sub")).unwrap();
    f.write("a.txt", "changed\n", 0o644);
    let before = f.listing();
    for bad in ["nope", "../../etc/passwd", &"z".repeat(64)] {
        let err = f
            .store
            .restore(&f.guard, bad, serde_json::Value::Null)
            .unwrap_err();
        assert!(matches!(err, CheckpointError::BadId { .. }), "{err}");
    }
    let unknown = "0".repeat(64);
    let err = f
        .store
        .restore(&f.guard, &unknown, serde_json::Value::Null)
        .unwrap_err();
    assert!(
        matches!(err, CheckpointError::UnknownCheckpoint { .. }),
        "{err}"
    );
    // Lose one blob of the checkpoint: the restore says so and changes nothing.
    f.store.lose_object(b"only in a\n").unwrap();
    let err = f
        .store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap_err();
    assert!(
        matches!(&err, CheckpointError::Incomplete { count: 1, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("missing"), "{err}");
    assert_eq!(f.listing(), before);
    assert_eq!(f.store.pending().unwrap(), None);
}
