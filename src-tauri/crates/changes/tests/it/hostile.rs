//! The workspace is written by the model and the cloned repository: a restore must not be
//! led outside the root or into .git by a symlink, and a snapshot must not read through one.

use std::os::unix::fs::symlink;

use paddock_protocol::{ChangeKind, DiffBody};

use crate::common::{Fixture, listing};

#[test]
fn a_folder_swapped_for_a_link_outside_is_put_back_without_writing_outside() {
    let f = Fixture::new();
    f.write("d/f.txt", "inside f\n", 0o644);
    f.write("d/deeper/g.txt", "inside g\n", 0o644);
    let before = f.listing();
    let a = f.snapshot();

    let outside = f.tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("f.txt"), "outside f\n").unwrap();
    let outside_before = listing(&outside);
    std::fs::remove_dir_all(f.path("d")).unwrap();
    symlink(&outside, f.path("d")).unwrap();

    let b = f.snapshot();
    let changes = f.store.changes(&a.id, &b.id).unwrap();
    let created: Vec<&str> = changes
        .iter()
        .filter(|c| c.kind == ChangeKind::Created)
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(created, ["d"], "the snapshot read through the link");
    assert!(
        matches!(&changes.iter().find(|c| c.kind == ChangeKind::Created).unwrap().diff,
        DiffBody::Link { new: Some(t), .. } if t == &outside.display().to_string())
    );

    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(listing(&outside), outside_before);
    assert_eq!(f.listing(), before);
    assert!(
        !std::fs::symlink_metadata(f.path("d"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_snapshot_never_reads_through_a_symlink_to_outside() {
    let f = Fixture::new();
    let outside = f.tmp.path().join("secrets");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("key.txt"), "TOPSECRET-7f3a\n").unwrap();
    f.write("plain.txt", "p\n", 0o644);
    symlink(outside.join("key.txt"), f.path("leak")).unwrap();
    symlink(&outside, f.path("leakdir")).unwrap();
    let snap = f.snapshot();
    assert_eq!(f.paths(&snap.id), ["leak", "leakdir", "plain.txt"]);
    // No object holds the secret: links are stored as their target's text only.
    for object in walk_files(&f.store_dir()) {
        let bytes = std::fs::read(&object).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains("TOPSECRET"),
            "{} holds the outside file",
            object.display()
        );
    }
}

#[test]
fn restore_never_touches_git_or_paddock() {
    let f = Fixture::new();
    f.write("a.txt", "a\n", 0o644);
    f.write(".git/HEAD", "ref: refs/heads/main\n", 0o644);
    f.write(".git/hooks/pre-commit", "#!/bin/sh\n", 0o755);
    f.write("nested/.git/config", "[core]\n", 0o644);
    f.write(".paddock/settings.json", "{}\n", 0o644);
    let a = f.snapshot();
    // Later the repository moves on, and a .git folder appears where there was none.
    f.write(".git/HEAD", "ref: refs/heads/other\n", 0o644);
    std::fs::remove_file(f.path(".git/hooks/pre-commit")).unwrap();
    f.write("nested/.git/config", "[changed]\n", 0o644);
    f.write("fresh/.git/HEAD", "x\n", 0o644);
    f.write(".paddock/settings.json", "{\"v\":2}\n", 0o644);
    f.write("a.txt", "changed\n", 0o644);
    let git_before = (
        listing(&f.path(".git")),
        listing(&f.path("nested/.git")),
        listing(&f.path("fresh")),
        listing(&f.path(".paddock")),
    );
    f.store
        .restore(&f.guard, &a.id, serde_json::Value::Null)
        .unwrap();
    f.store.finish().unwrap();
    assert_eq!(std::fs::read_to_string(f.path("a.txt")).unwrap(), "a\n");
    let git_after = (
        listing(&f.path(".git")),
        listing(&f.path("nested/.git")),
        listing(&f.path("fresh")),
        listing(&f.path(".paddock")),
    );
    assert_eq!(git_after, git_before);
}

fn walk_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk_files(&path));
        } else {
            out.push(path);
        }
    }
    out
}
