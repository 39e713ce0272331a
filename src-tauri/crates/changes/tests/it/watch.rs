//! The change journal: what bash does between two snapshots is caught (each step compared
//! with a store that walks, and with a walk of its own), an overflow or a failed snapshot
//! falls back to a walk, and a new process (the journal lost with the old one) walks.

use paddock_changes::{CheckpointStore, StoreOptions};
use paddock_guard::PathGuard;

use crate::common::{Fixture, sh};

/// A store that walks every time, on the same workspace: the truth to compare with.
fn truth(f: &Fixture) -> CheckpointStore {
    let options = StoreOptions {
        journal: false,
        cross_check_every: 0,
        share_with_git: false,
    };
    CheckpointStore::open_with(f.tmp.path().join("data/truth"), options).unwrap()
}

fn seed(f: &Fixture) {
    sh(
        &f.ws,
        "mkdir -p src/deep/er docs old && \
         for i in 1 2 3 4 5; do echo \"file $i\" > src/f$i.txt; done && \
         echo deep > src/deep/er/d.txt && echo doc > docs/a.md && echo old > old/o.txt && \
         echo linked > linked.txt",
    );
}

#[test]
fn every_kind_of_bash_change_is_caught_without_a_walk() {
    let f = Fixture::with(StoreOptions {
        journal: true,
        cross_check_every: 0,
        share_with_git: true,
    });
    let walk = truth(&f);
    let guard = PathGuard::new(&f.ws);
    seed(&f);
    let first = f.snapshot();
    assert!(first.walked);
    assert_eq!(first.id, walk.snapshot(&guard).unwrap().id);
    let steps = [
        (
            "create",
            "echo new > src/new.txt && mkdir -p made/x/y && echo z > made/x/y/z.txt",
        ),
        ("modify", "echo changed >> src/f1.txt"),
        ("delete", "rm src/f2.txt && rm -r old"),
        ("chmod", "chmod 700 src/f3.txt && chmod 750 src/deep"),
        ("rename a file", "mv src/f4.txt src/deep/four.txt"),
        (
            "rename a folder",
            "mv src/deep src/moved && echo after > src/moved/er/after.txt",
        ),
        (
            "a folder replaced by a file",
            "rm -r docs && echo was-a-folder > docs",
        ),
        (
            "a file replaced by a folder",
            "rm src/f5.txt && mkdir src/f5.txt && echo in > src/f5.txt/in",
        ),
        (
            "a symlink",
            "ln -s ../linked.txt src/link && ln -s /etc made/out",
        ),
        (
            "a hard link (a walk finds its other names)",
            "ln linked.txt hard.txt",
        ),
        ("a write through one name", "echo via-hard >> hard.txt"),
        ("an ignore file", "echo 'made/' > .gitignore"),
        ("nothing", "true"),
        ("touch, same content", "touch src/f1.txt"),
    ];
    for (what, script) in steps {
        sh(&f.ws, script);
        let snap = f.snapshot();
        assert_eq!(snap.walked, what.starts_with("a hard link"), "{what}");
        assert_eq!(snap.id, walk.snapshot(&guard).unwrap().id, "{what}");
    }
    let stats = f.store.journal_stats();
    assert_eq!((stats.walks, stats.incremental), (2, 13), "{stats:?}");
    assert!(stats.watched >= 4, "{stats:?}");
}

#[test]
fn a_turn_reads_only_what_changed() {
    let f = Fixture::new();
    for d in 0..20 {
        for i in 0..20 {
            f.write(&format!("d{d}/f{i}.txt"), format!("{d} {i}\n"), 0o644);
        }
    }
    assert_eq!(f.snapshot().hashed, 400);
    sh(&f.ws, "echo x >> d3/f3.txt && echo y > d7/new.txt");
    let snap = f.snapshot();
    assert_eq!((snap.hashed, snap.files, snap.walked), (2, 401, false));
}

#[test]
fn an_overflowing_journal_falls_back_to_a_walk() {
    let f = Fixture::new();
    seed(&f);
    let walk = truth(&f);
    let guard = PathGuard::new(&f.ws);
    f.snapshot();
    // The reader stops: the kernel's queue (16,384 events by default) overflows.
    f.store.pause_journal(true);
    std::thread::sleep(std::time::Duration::from_millis(400));
    // In a watched folder (a new folder's files raise no events until it is read).
    sh(
        &f.ws,
        "cd src && for i in $(seq 1 7000); do echo $i > many$i; done",
    );
    sh(&f.ws, "echo late > src/f1.txt");
    f.store.pause_journal(false);
    let snap = f.snapshot();
    assert!(snap.walked);
    assert_eq!(snap.id, walk.snapshot(&guard).unwrap().id);
    let reason = f.store.journal_stats().last_walk_reason.unwrap_or_default();
    assert!(reason.contains("overflow"), "{reason}");
    // Armed again by that walk.
    sh(&f.ws, "echo again >> src/f1.txt");
    let next = f.snapshot();
    assert!(!next.walked, "{:?}", f.store.journal_stats());
    assert_eq!(next.id, walk.snapshot(&guard).unwrap().id);
}

#[test]
fn a_snapshot_that_fails_after_the_journal_was_taken_loses_nothing() {
    let f = Fixture::new();
    seed(&f);
    let walk = truth(&f);
    let guard = PathGuard::new(&f.ws);
    f.snapshot();
    // The store cannot write the snapshot's objects (their pack folder is a file).
    std::fs::write(f.path("src/f1.txt"), "the change that must not be lost\n").unwrap();
    let packs = f.store_dir().join("objects/packs");
    let _ = std::fs::remove_dir_all(&packs);
    std::fs::write(&packs, "in the way").unwrap();
    assert!(f.store.snapshot(&f.guard).is_err());
    std::fs::remove_file(&packs).unwrap();
    // The journal handed the change over to the failed snapshot; the next one walks.
    let snap = f.snapshot();
    assert!(snap.walked);
    assert_eq!(snap.id, walk.snapshot(&guard).unwrap().id);
}

#[test]
fn a_process_that_dies_between_journal_and_store_loses_nothing() {
    let f = Fixture::new();
    seed(&f);
    let walk = truth(&f);
    let guard = PathGuard::new(&f.ws);
    let store = CheckpointStore::open(f.store_dir()).unwrap();
    store.snapshot(&f.guard).unwrap();
    sh(
        &f.ws,
        "echo crash >> src/f1.txt && rm src/f2.txt && mkdir n && echo n > n/n",
    );
    // The journal recorded the changes; the process dies before the next snapshot (no
    // destructor runs: the index is not saved either).
    std::mem::forget(store);
    let next = CheckpointStore::open(f.store_dir()).unwrap();
    let snap = next.snapshot(&f.guard).unwrap();
    assert!(snap.walked, "a new process has no journal: it walks");
    assert_eq!(snap.id, walk.snapshot(&guard).unwrap().id);
}

#[test]
fn the_journal_is_off_where_it_cannot_be_trusted_and_snapshots_walk() {
    let f = Fixture::walking();
    seed(&f);
    f.snapshot();
    sh(&f.ws, "echo x >> src/f1.txt");
    let snap = f.snapshot();
    assert!(snap.walked);
    let stats = f.store.journal_stats();
    assert_eq!((stats.walks, stats.incremental), (2, 0));
}

/// One scripted run, played in two workspaces: one recorded with the journal and git
/// sharing, one as before (walking, copying). Every checkpoint has the same id, and every
/// rewind gives the same files, byte for byte.
#[test]
fn rewinds_are_byte_for_byte_those_of_a_walking_store() {
    let now = Fixture::new();
    let before = Fixture::walking();
    let script = [
        "git init -q && mkdir -p src lib && for i in $(seq 1 30); do echo \"line $i\" > src/f$i.rs; done && \
         git -c user.name=t -c user.email=t@t add -A && \
         git -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -q -m base",
        "echo edit >> src/f1.rs && echo new > lib/new.rs && chmod 755 src/f2.rs",
        "rm src/f3.rs && mv src/f4.rs lib/four.rs && ln -s ../lib/new.rs src/link",
        "rm -r lib && echo file-now > lib && mkdir src/f5.rs.d && echo in > src/f5.rs.d/x",
        "git -c user.name=t -c user.email=t@t -c commit.gpgsign=false commit -q -a -m two",
        "echo 'target/' > .gitignore && mkdir -p target/debug && echo bin > target/debug/app",
        "for i in $(seq 6 20); do echo changed >> src/f$i.rs; done && touch src/f21.rs",
    ];
    let mut ids = Vec::new();
    for step in script {
        for f in [&now, &before] {
            sh(&f.ws, step);
        }
        let (a, b) = (now.snapshot(), before.snapshot());
        assert_eq!(a.id, b.id, "{step}");
        ids.push(a.id);
    }
    assert!(now.store.shared_with_git() > 0);
    assert_eq!(before.store.shared_with_git(), 0);
    for id in ids.iter().rev().chain(ids.iter()) {
        let mut changed = Vec::new();
        for f in [&now, &before] {
            changed.push(
                f.store
                    .restore(&f.guard, id, serde_json::Value::Null)
                    .unwrap(),
            );
            f.store.finish().unwrap();
        }
        assert_eq!(changed[0], changed[1]);
        assert_eq!(files(&now), files(&before), "{id}");
        // (Not always `id`: a rewind to before the .gitignore leaves target/, now kept.)
        assert_eq!(now.snapshot().id, before.snapshot().id);
    }
}

fn files(f: &Fixture) -> std::collections::BTreeMap<String, String> {
    let mut all = f.listing();
    all.retain(|path, _| path != ".git" && !path.starts_with(".git/"));
    all
}
