//! Tests of the guarded restore operations (restore.rs).
use std::os::unix::fs::{PermissionsExt, symlink};

use super::*;
use crate::PathGuard;

/// A workspace `ws` in a temporary folder (whose other entries are "outside").
fn setup() -> (tempfile::TempDir, Root, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = PathGuard::new(tmp.path().join("ws")).create_root().unwrap();
    let ws = tmp.path().join("ws");
    (tmp, root, ws)
}

fn not_empty(err: &PathError) -> bool {
    matches!(err, PathError::Io { source, .. } if source.kind() == io::ErrorKind::DirectoryNotEmpty)
}

fn mode_of(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .unwrap()
        .permissions()
        .mode()
        & 0o7777
}

fn fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

#[test]
fn put_file_creates_parents_and_sets_the_exact_mode() {
    let (_tmp, r, ws) = setup();
    r.put_file(Path::new("a/b/run.sh"), b"echo hi\n", 0o4755)
        .unwrap();
    assert_eq!(std::fs::read(ws.join("a/b/run.sh")).unwrap(), b"echo hi\n");
    assert_eq!(
        mode_of(&ws.join("a/b/run.sh")),
        0o755,
        "setuid is never restored"
    );
    // Replacing keeps nothing of the old file's mode, and leaves no temporary file.
    r.put_file(Path::new("a/b/run.sh"), b"x", 0o600).unwrap();
    assert_eq!(std::fs::read(ws.join("a/b/run.sh")).unwrap(), b"x");
    assert_eq!(mode_of(&ws.join("a/b/run.sh")), 0o600);
    assert_eq!(std::fs::read_dir(ws.join("a/b")).unwrap().count(), 1);
}

#[test]
fn put_file_replaces_links_fifos_and_empty_dirs_but_not_full_dirs() {
    let (_tmp, r, ws) = setup();
    fifo(&ws.join("pipe"));
    r.put_file(Path::new("pipe"), b"1", 0o644).unwrap();
    std::fs::create_dir(ws.join("empty")).unwrap();
    r.put_file(Path::new("empty"), b"2", 0o644).unwrap();
    std::fs::create_dir_all(ws.join("full/x")).unwrap();
    let err = r.put_file(Path::new("full"), b"3", 0o644).unwrap_err();
    assert!(not_empty(&err), "{err}");
    for name in ["pipe", "empty"] {
        assert!(std::fs::symlink_metadata(ws.join(name)).unwrap().is_file());
    }
    assert!(ws.join("full/x").is_dir());
}

#[test]
fn replacing_a_symlink_never_writes_its_target() {
    let (tmp, r, ws) = setup();
    let outside = tmp.path().join("outside.txt");
    std::fs::write(&outside, "precious").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o640)).unwrap();
    symlink(&outside, ws.join("link")).unwrap();
    r.put_file(Path::new("link"), b"mine", 0o755).unwrap();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    assert_eq!(mode_of(&outside), 0o640);
    let meta = std::fs::symlink_metadata(ws.join("link")).unwrap();
    assert!(meta.is_file());
    // The same for a link replaced by a link, and a link removed.
    symlink(&outside, ws.join("l2")).unwrap();
    r.put_symlink(Path::new("l2"), Path::new("elsewhere"))
        .unwrap();
    assert_eq!(
        std::fs::read_link(ws.join("l2")).unwrap(),
        Path::new("elsewhere")
    );
    symlink(&outside, ws.join("l3")).unwrap();
    r.remove(Path::new("l3")).unwrap();
    assert!(std::fs::symlink_metadata(ws.join("l3")).is_err());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
}

#[test]
fn make_dir_creates_sets_modes_and_refuses_a_file_in_the_way() {
    let (_tmp, r, ws) = setup();
    r.make_dir(Path::new("p/q"), 0o700).unwrap();
    assert_eq!(mode_of(&ws.join("p/q")), 0o700);
    assert_eq!(mode_of(&ws.join("p")), 0o755 & mode_of(&ws.join("p")));
    r.make_dir(Path::new("p/q"), 0o751).unwrap();
    assert_eq!(mode_of(&ws.join("p/q")), 0o751);
    std::fs::write(ws.join("f"), "").unwrap();
    assert!(r.make_dir(Path::new("f"), 0o755).is_err());
    assert!(ws.join("f").is_file());
}

#[test]
fn remove_takes_files_links_fifos_and_empty_dirs_and_accepts_missing() {
    let (_tmp, r, ws) = setup();
    std::fs::write(ws.join("f"), "").unwrap();
    fifo(&ws.join("pipe"));
    symlink("/", ws.join("l")).unwrap();
    std::fs::create_dir_all(ws.join("d/e")).unwrap();
    for name in ["f", "pipe", "l", "d/e", "d", "missing", "no/such/parent"] {
        r.remove(Path::new(name)).unwrap();
    }
    assert_eq!(std::fs::read_dir(&ws).unwrap().count(), 0);
    std::fs::create_dir_all(ws.join("full/x")).unwrap();
    let err = r.remove(Path::new("full")).unwrap_err();
    assert!(not_empty(&err), "{err}");
}

#[test]
fn put_symlink_stores_the_target_as_text() {
    let (_tmp, r, ws) = setup();
    r.put_symlink(Path::new("n/link"), Path::new("../../../etc/passwd"))
        .unwrap();
    assert_eq!(
        std::fs::read_link(ws.join("n/link")).unwrap(),
        Path::new("../../../etc/passwd")
    );
    std::fs::write(ws.join("file"), "x").unwrap();
    r.put_symlink(Path::new("file"), Path::new("n")).unwrap();
    assert!(
        std::fs::symlink_metadata(ws.join("file"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn set_mode_changes_files_and_dirs_but_refuses_links_and_shared_files() {
    let (tmp, r, ws) = setup();
    std::fs::write(ws.join("f"), "").unwrap();
    std::fs::create_dir(ws.join("d")).unwrap();
    r.set_mode(Path::new("f"), 0o751).unwrap();
    r.set_mode(Path::new("d"), 0o700).unwrap();
    assert_eq!(
        (mode_of(&ws.join("f")), mode_of(&ws.join("d"))),
        (0o751, 0o700)
    );
    let outside = tmp.path().join("outside");
    std::fs::write(&outside, "").unwrap();
    std::fs::set_permissions(&outside, std::fs::Permissions::from_mode(0o600)).unwrap();
    symlink(&outside, ws.join("l")).unwrap();
    assert!(r.set_mode(Path::new("l"), 0o777).is_err());
    std::fs::hard_link(&outside, ws.join("hard")).unwrap();
    assert!(r.set_mode(Path::new("hard"), 0o777).is_err());
    assert_eq!(mode_of(&outside), 0o600);
    fifo(&ws.join("pipe"));
    assert!(r.set_mode(Path::new("pipe"), 0o777).is_err());
}

#[test]
fn read_only_areas_climbing_and_absolute_paths_are_refused() {
    let (tmp, r, ws) = setup();
    for path in [".git/hooks/pre-commit", "a/.paddock/settings.json", ".git"] {
        let p = Path::new(path);
        for err in [
            r.put_file(p, b"x", 0o755).unwrap_err(),
            r.make_dir(p, 0o755).unwrap_err(),
            r.remove(p).unwrap_err(),
            r.put_symlink(p, Path::new("x")).unwrap_err(),
            r.set_mode(p, 0o755).unwrap_err(),
        ] {
            assert!(matches!(err, PathError::ReadOnly { .. }), "{path}: {err}");
        }
    }
    for path in ["../escape", "a/../../escape", "/tmp/escape", "./a", ""] {
        let err = r.put_file(Path::new(path), b"x", 0o644).unwrap_err();
        assert!(err.is_refusal(), "{path}: {err}");
    }
    assert!(!tmp.path().join("escape").exists());
    assert_eq!(std::fs::read_dir(&ws).unwrap().count(), 0);
}

#[test]
fn a_symlinked_parent_is_refused_even_pointing_inside() {
    let (tmp, r, ws) = setup();
    let outside = tmp.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("victim"), "precious").unwrap();
    symlink(&outside, ws.join("out")).unwrap();
    std::fs::create_dir(ws.join("real")).unwrap();
    symlink("real", ws.join("in")).unwrap();
    for dir in ["out", "in"] {
        let file = Path::new(dir).join("victim");
        let nested = Path::new(dir).join("new/deeper");
        for err in [
            r.put_file(&file, b"x", 0o644).unwrap_err(),
            r.put_file(&nested, b"x", 0o644).unwrap_err(),
            r.make_dir(&nested, 0o755).unwrap_err(),
            r.remove(&file).unwrap_err(),
            r.put_symlink(&file, Path::new("x")).unwrap_err(),
            r.set_mode(&file, 0o777).unwrap_err(),
            r.open_rel_dir(Path::new(dir)).unwrap_err(),
        ] {
            assert!(matches!(err, PathError::Raced { .. }), "{dir}: {err}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(outside.join("victim")).unwrap(),
        "precious"
    );
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(ws.join("real")).unwrap().count(), 0);
}

#[test]
fn open_rel_dir_lists_the_root_and_folders_only() {
    let (_tmp, r, ws) = setup();
    std::fs::create_dir(ws.join("d")).unwrap();
    std::fs::write(ws.join("f"), "").unwrap();
    assert!(
        r.open_rel_dir(Path::new(""))
            .unwrap()
            .metadata()
            .unwrap()
            .is_dir()
    );
    assert!(r.open_rel_dir(Path::new("d")).is_ok());
    assert!(r.open_rel_dir(Path::new("f")).is_err());
    assert!(r.open_rel_dir(Path::new("../ws")).unwrap_err().is_refusal());
}
