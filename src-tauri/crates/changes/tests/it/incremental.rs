//! The stat cache: an unchanged file is not read again, in this process or the next, and a
//! change that hides from the cheap checks (same size, mtime set back) is still caught.

use std::time::SystemTime;

use paddock_changes::CheckpointStore;

use crate::common::{Fixture, SETTLE};

fn tree(f: &Fixture) -> usize {
    for d in 0..5 {
        for i in 0..10 {
            f.write(
                &format!("d{d}/sub/f{i}.txt"),
                format!("file {d} {i}\n"),
                0o644,
            );
        }
    }
    f.write("top.txt", "top\n", 0o644);
    51
}

#[test]
fn an_unchanged_workspace_gives_the_same_id_without_reading_a_file() {
    let f = Fixture::new();
    let n = tree(&f);
    std::thread::sleep(SETTLE);
    let first = f.snapshot();
    assert_eq!((first.files, first.hashed), (n, n));
    assert!(first.stored > 0);
    let second = f.snapshot();
    assert_eq!(second.id, first.id);
    assert_eq!((second.hashed, second.stored, second.files), (0, 0, n));
    assert_eq!(second.bytes, first.bytes);
}

#[test]
fn a_recent_file_is_read_again_until_it_settles() {
    // Walking (no journal), a stamp is all there is to go by.
    let f = Fixture::walking();
    let n = tree(&f);
    let first = f.snapshot();
    assert_eq!(first.hashed, n);
    // Written within the racy window: its stamp is not trusted yet.
    let again = f.snapshot();
    assert_eq!((again.id.as_str(), again.hashed), (first.id.as_str(), n));
    assert!(again.walked);
}

#[test]
fn with_the_journal_a_recent_file_is_not_read_again() {
    // The journal would have named it had it changed since.
    let f = Fixture::new();
    let n = tree(&f);
    let first = f.snapshot();
    assert_eq!((first.hashed, first.walked), (n, true));
    let again = f.snapshot();
    assert_eq!((again.id.as_str(), again.hashed), (first.id.as_str(), 0));
    assert!(!again.walked);
}

#[test]
fn a_change_with_the_same_size_and_mtime_is_caught_by_ctime_or_inode() {
    let f = Fixture::new();
    tree(&f);
    let path = f.path("d0/sub/f0.txt");
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let renamed = f.path("d1/sub/f1.txt");
    let renamed_mtime = std::fs::metadata(&renamed).unwrap().modified().unwrap();
    std::thread::sleep(SETTLE);
    let first = f.snapshot();

    // Same size, mtime put back: only the ctime tells.
    std::fs::write(&path, "FILE 0 0\n").unwrap();
    set_mtime(&path, mtime);
    let second = f.snapshot();
    assert_ne!(second.id, first.id);
    assert_eq!(second.hashed, 1);
    let change = f
        .store
        .change_of(&first.id, &second.id, "d0/sub/f0.txt")
        .unwrap();
    assert_eq!(change.unwrap().added, 1);

    // A new inode renamed over the file, same size and mtime.
    let temp = f.path("d1/sub/temp");
    std::fs::write(&temp, "FILE 1 1\n").unwrap();
    set_mtime(&temp, renamed_mtime);
    std::fs::rename(&temp, &renamed).unwrap();
    let third = f.snapshot();
    assert_ne!(third.id, second.id);
    assert!(third.hashed >= 1);
    let changed: Vec<String> = f
        .store
        .changes(&second.id, &third.id)
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    assert_eq!(changed, ["d1/sub/f1.txt"]);
}

#[test]
fn a_new_store_on_the_same_folder_reuses_the_index() {
    let f = Fixture::new();
    let n = tree(&f);
    std::thread::sleep(SETTLE);
    let first = f.snapshot();
    assert_eq!(first.hashed, n);
    assert!(f.store_dir().join("index.json").is_file());
    // A new process: only the folder is shared.
    let next = CheckpointStore::open(f.store_dir()).unwrap();
    let again = next.snapshot(&f.guard).unwrap();
    assert_eq!((again.id.as_str(), again.hashed), (first.id.as_str(), 0));
}

#[test]
fn a_damaged_index_is_ignored_and_rebuilt() {
    let f = Fixture::new();
    let n = tree(&f);
    std::thread::sleep(SETTLE);
    let first = f.snapshot();
    std::fs::write(f.store_dir().join("index.json"), "{not json").unwrap();
    let next = CheckpointStore::open(f.store_dir()).unwrap();
    let again = next.snapshot(&f.guard).unwrap();
    assert_eq!((again.id.as_str(), again.hashed), (first.id.as_str(), n));
    let third = CheckpointStore::open(f.store_dir()).unwrap();
    assert_eq!(third.snapshot(&f.guard).unwrap().hashed, 0);
}

#[test]
fn a_cached_file_whose_object_was_lost_is_read_again() {
    let f = Fixture::new();
    tree(&f);
    std::thread::sleep(SETTLE);
    let first = f.snapshot();
    f.store.lose_object(b"top\n").unwrap();
    let next = CheckpointStore::open(f.store_dir()).unwrap();
    let again = next.snapshot(&f.guard).unwrap();
    assert_eq!((again.id.as_str(), again.hashed), (first.id.as_str(), 1));
    assert!(next.has_object(b"top\n"));
}

fn set_mtime(path: &std::path::Path, when: SystemTime) {
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}
