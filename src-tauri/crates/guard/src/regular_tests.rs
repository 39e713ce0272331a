//! Each kind of path a stranger can plant, opened both ways (link followed, link refused):
//! only a regular file within the bound is opened, everything else is refused at once,
//! naming the path and what it is.

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use super::*;

/// Longer than any open of a local file; an open that blocks fails the test instead of
/// hanging the suite.
const AT_ONCE: Duration = Duration::from_secs(3);

fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// `open_regular(path, max, links)` on a thread of its own, failing the test when it does
/// not answer within [`AT_ONCE`].
fn open_at_once(path: &Path, max: u64, links: Links) -> Result<RegularFile, UntrustedFileError> {
    let (tx, rx) = mpsc::channel();
    let owned: PathBuf = path.to_owned();
    std::thread::spawn(move || {
        let _ = tx.send(open_regular(&owned, max, links));
    });
    rx.recv_timeout(AT_ONCE)
        .unwrap_or_else(|_| panic!("opening {} blocked", path.display()))
}

fn refused_as(path: &Path, links: Links, kind: FileKind) {
    match open_at_once(path, 1 << 20, links) {
        Err(e @ UntrustedFileError::NotRegular { kind: k, .. }) if k == kind => {
            let text = e.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(text.contains(&kind.to_string()), "{text}");
        }
        other => panic!("{} ({links:?}): {other:?}", path.display()),
    }
}

#[test]
fn a_regular_file_is_read_in_blocking_mode_and_closed_on_exec() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.txt");
    std::fs::write(&file, "hello").unwrap();
    for links in [Links::Follow, Links::Refuse] {
        let opened = open_at_once(&file, 5, links).unwrap();
        assert_eq!(opened.size(), 5);
        let raw = opened.into_file();
        let flags = rustix::fs::fcntl_getfl(&raw).unwrap();
        assert!(!flags.contains(rustix::fs::OFlags::NONBLOCK), "{flags:?}");
        let fd_flags = rustix::io::fcntl_getfd(&raw).unwrap();
        assert!(fd_flags.contains(rustix::io::FdFlags::CLOEXEC));
        assert_eq!(read_regular_text(&file, 5, links).unwrap(), "hello");
    }
}

/// Before this helper, `paddock_images::read_file` (`--image`) used `File::open`: the open
/// of a FIFO with no writer never returned (this test's thread timed out).
#[test]
fn a_fifo_is_refused_without_blocking_either_way() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("shot.png");
    mkfifo(&fifo);
    refused_as(&fifo, Links::Follow, FileKind::Fifo);
    refused_as(&fifo, Links::Refuse, FileKind::Fifo);
    // Through a link the user may follow: still the FIFO it leads to.
    let link = dir.path().join("link.png");
    symlink(&fifo, &link).unwrap();
    refused_as(&link, Links::Follow, FileKind::Fifo);
    assert!(matches!(
        open_at_once(&link, 10, Links::Refuse),
        Err(UntrustedFileError::Symlink { .. })
    ));
}

#[test]
fn a_socket_a_folder_and_devices_are_refused_by_kind() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("agent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    refused_as(&socket, Links::Follow, FileKind::Socket);
    refused_as(&socket, Links::Refuse, FileKind::Socket);
    refused_as(dir.path(), Links::Follow, FileKind::Folder);
    refused_as(dir.path(), Links::Refuse, FileKind::Folder);
    refused_as(Path::new("/dev/zero"), Links::Follow, FileKind::CharDevice);
    refused_as(Path::new("/dev/null"), Links::Refuse, FileKind::CharDevice);
    let zero = dir.path().join("zero");
    symlink("/dev/zero", &zero).unwrap();
    refused_as(&zero, Links::Follow, FileKind::CharDevice);
    // A block device where this machine has one (containers often have none).
    let block = std::fs::read_dir("/dev")
        .into_iter()
        .flatten()
        .flatten()
        .find(|e| {
            use std::os::unix::fs::FileTypeExt;
            e.file_type().is_ok_and(|t| t.is_block_device())
        });
    if let Some(block) = block {
        refused_as(&block.path(), Links::Follow, FileKind::BlockDevice);
    }
}

#[test]
fn missing_links_and_sizes_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none");
    assert!(
        open_at_once(&missing, 10, Links::Follow)
            .unwrap_err()
            .is_missing()
    );
    assert!(
        open_at_once(&missing, 10, Links::Refuse)
            .unwrap_err()
            .is_missing()
    );
    let dangling = dir.path().join("dangling");
    symlink(&missing, &dangling).unwrap();
    assert!(
        open_at_once(&dangling, 10, Links::Follow)
            .unwrap_err()
            .is_missing()
    );
    assert!(matches!(
        open_at_once(&dangling, 10, Links::Refuse),
        Err(UntrustedFileError::Symlink { .. })
    ));

    let big = dir.path().join("big");
    std::fs::write(&big, "x".repeat(11)).unwrap();
    let e = open_at_once(&big, 10, Links::Follow).unwrap_err();
    assert!(
        matches!(
            e,
            UntrustedFileError::TooBig {
                size: 11,
                max: 10,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains(&big.display().to_string()), "{e}");
    assert_eq!(read_regular(&big, 11, Links::Refuse).unwrap().len(), 11);

    let binary = dir.path().join("bin");
    std::fs::write(&binary, [0xff, 0xfe]).unwrap();
    assert!(matches!(
        read_regular_text(&binary, 10, Links::Follow),
        Err(UntrustedFileError::NotText { .. })
    ));
}

#[test]
fn a_file_that_grows_after_the_open_is_still_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("grows");
    std::fs::write(&file, "abc").unwrap();
    let opened = open_at_once(&file, 4, Links::Refuse).unwrap();
    std::fs::write(&file, "abcdefgh").unwrap();
    assert!(matches!(
        opened.read_all(),
        Err(UntrustedFileError::TooBig { max: 4, .. })
    ));
}

/// The descriptor is judged, not only the first look: a FIFO opened without blocking is
/// still told apart from a file on its descriptor.
#[test]
fn the_descriptor_is_judged_after_the_open() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    mkfifo(&fifo);
    let (tx, rx) = mpsc::channel();
    let owned = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(open_nonblocking(&owned, Links::Refuse).map(|f| f.metadata()));
    });
    let meta = rx.recv_timeout(AT_ONCE).unwrap().unwrap().unwrap();
    assert_eq!(FileKind::of(meta.file_type()), Some(FileKind::Fifo));
}
