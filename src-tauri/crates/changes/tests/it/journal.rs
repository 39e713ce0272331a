//! The restore journal: a restore not finished is reported, applied again by `recover`
//! (from whatever state the workspace is in), and refused for another workspace.

use paddock_changes::{CheckpointError, CheckpointStore};
use paddock_guard::PathGuard;
use serde_json::json;

use crate::common::{Fixture, chmod};

#[test]
fn recover_reapplies_an_interrupted_restore_and_returns_its_note() {
    let f = Fixture::new();
    f.write("a.txt", "first\n", 0o644);
    f.write("dir/b.txt", "b\n", 0o600);
    let first = f.listing();
    let a = f.snapshot();
    f.write("a.txt", "second\n", 0o644);
    f.write("c.txt", "new\n", 0o644);
    std::fs::remove_dir_all(f.path("dir")).unwrap();
    let b = f.snapshot();
    assert_eq!(f.store.pending().unwrap(), None);
    assert_eq!(f.store.recover(&f.guard).unwrap(), None);

    let note = json!({"session": "s1", "rewind": "r1"});
    f.store.restore(&f.guard, &a.id, note.clone()).unwrap();
    // The process dies here, before finish; and before it died the restore was only half
    // done (some files still as in `b`, one as neither).
    f.write("a.txt", "second\n", 0o644);
    f.write("c.txt", "new\n", 0o644);
    std::fs::remove_file(f.path("dir/b.txt")).unwrap();
    f.write("dir/half.tmp", "torn\n", 0o644);
    chmod(&f.path("dir"), 0o500);
    assert_eq!(f.store.pending().unwrap(), Some(note.clone()));

    // A new process recovers.
    let store = CheckpointStore::open(f.store_dir()).unwrap();
    assert_eq!(store.recover(&f.guard).unwrap(), Some(note.clone()));
    assert_eq!(f.listing(), first);
    // Idempotent: again gives the same state, until the caller finishes.
    assert_eq!(store.recover(&f.guard).unwrap(), Some(note));
    assert_eq!(f.listing(), first);
    store.finish().unwrap();
    assert_eq!(store.recover(&f.guard).unwrap(), None);
    assert_eq!(store.pending().unwrap(), None);
    assert!(!f.store_dir().join("journal.json").exists());
    // The state before the rewind was kept, so the rewind can be undone.
    store.restore(&f.guard, &b.id, json!(null)).unwrap();
    store.finish().unwrap();
    assert_eq!(std::fs::read_to_string(f.path("c.txt")).unwrap(), "new\n");
}

#[test]
fn a_pending_restore_blocks_another_and_recover_refuses_another_workspace() {
    let f = Fixture::new();
    f.write("a.txt", "a\n", 0o644);
    let a = f.snapshot();
    f.write("a.txt", "b\n", 0o644);
    f.store.restore(&f.guard, &a.id, json!(1)).unwrap();
    let err = f.store.restore(&f.guard, &a.id, json!(2)).unwrap_err();
    assert!(matches!(err, CheckpointError::Pending { .. }), "{err}");

    let other = f.tmp.path().join("other-ws");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("keep.txt"), "untouched\n").unwrap();
    let err = f.store.recover(&PathGuard::new(&other)).unwrap_err();
    assert!(matches!(err, CheckpointError::OtherRoot { .. }), "{err}");
    assert_eq!(
        std::fs::read_to_string(other.join("keep.txt")).unwrap(),
        "untouched\n"
    );
    assert_eq!(f.store.pending().unwrap(), Some(json!(1)));
    // Pruning keeps what the pending restore needs, even when the caller keeps nothing.
    assert!(f.store.prune(&[]).unwrap() > 0);
    f.write("a.txt", "c\n", 0o644);
    assert_eq!(f.store.recover(&f.guard).unwrap(), Some(json!(1)));
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "a\n");
    f.store.finish().unwrap();
}

#[test]
fn a_damaged_journal_is_reported_not_guessed_at() {
    let f = Fixture::new();
    std::fs::write(f.store_dir().join("journal.json"), "{\"v\":1,").unwrap();
    let err = f.store.recover(&f.guard).unwrap_err();
    assert!(matches!(err, CheckpointError::BadJournal { .. }), "{err}");
    assert!(err.to_string().contains("journal.json"));
}
