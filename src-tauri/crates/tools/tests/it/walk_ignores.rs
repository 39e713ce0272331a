//! The search tools' walk reads ignore files with Paddock's own opener (issue 50, item 6):
//! the rules it applies are the `ignore` crate's, and no ignore file swapped for a FIFO
//! after a look can block it.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use paddock_tools::workspace_files;

fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// What the `ignore` crate's walker lists with its own reading of the same files (the
/// walk's settings before this change).
fn as_the_crate_lists(root: &Path) -> Vec<String> {
    let mut all: Vec<String> = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !e.file_type().is_some_and(|t| t.is_dir())
                || !e
                    .file_name()
                    .to_str()
                    .is_some_and(|n| paddock_tools::SKIPPED_DIRS.contains(&n))
        })
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    all.sort();
    all
}

/// Nested rules, negations, anchored and folder-only patterns, `.ignore` over `.gitignore`,
/// the repository's exclude file and a byte-order mark: the same files as the crate lists.
#[test]
fn the_walk_applies_the_rules_the_crate_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    put(&root, ".git/info/exclude", "excluded.txt\n");
    put(
        &root,
        ".gitignore",
        "\u{feff}*.log\n/build\ncache/\n!keep.log\nsub/deep/*.tmp\n",
    );
    put(&root, ".ignore", "!sub/forced.log\nsecret*\n");
    put(&root, "sub/.gitignore", "*.txt\n!wanted.txt\n/local\n");
    put(&root, "sub/inner/.ignore", "!*.log\n");
    for f in [
        "a.rs",
        "a.log",
        "keep.log",
        "excluded.txt",
        "build/out.o",
        "src/build/x.rs",
        "cache/c",
        "src/cache/c",
        "secret.env",
        "sub/x.txt",
        "sub/wanted.txt",
        "sub/forced.log",
        "sub/local/l.rs",
        "sub/other/local/l.rs",
        "sub/inner/y.log",
        "sub/inner/z.txt",
        "sub/deep/a.tmp",
        "sub/deep/b.rs",
        "node_modules/m.js",
    ] {
        put(&root, f, "x");
    }
    let (mine, more) = workspace_files(&root, 1_000).unwrap();
    assert!(!more);
    let theirs = as_the_crate_lists(&root);
    assert_eq!(mine, theirs);
    // The case is not trivial: rules of every kind left files out, and some came back.
    assert!(mine.contains(&"keep.log".to_owned()), "{mine:?}");
    assert!(mine.contains(&"sub/inner/y.log".to_owned()), "{mine:?}");
    for gone in [
        "a.log",
        "excluded.txt",
        "secret.env",
        "sub/x.txt",
        "sub/local/l.rs",
    ] {
        assert!(!mine.contains(&gone.to_owned()), "{gone}: {mine:?}");
    }
}

/// A folder's `.gitignore` flips between a regular file and a FIFO while walks run. The
/// walk used to look first and let the crate open it after, with a plain open that waits for
/// a writer forever when the FIFO won the race. Shown able to fail: with the crate reading
/// the files again (`ignore(true).git_ignore(true)` and the look before), a walk hung within
/// the first five ("a walk blocked on an ignore file after 4 walks").
#[test]
fn an_ignore_file_swapped_for_a_fifo_never_blocks_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for i in 0..20 {
        put(&root, &format!("sub{i}/f.rs"), "x");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flipper = {
        let stop = stop.clone();
        let root = root.clone();
        std::thread::spawn(move || {
            let fifo = root.join("fifo");
            let plain = root.join("plain");
            let mut n = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let target = root.join(format!("sub{}/.gitignore", n % 20));
                rustix::fs::mknodat(
                    rustix::fs::CWD,
                    &fifo,
                    rustix::fs::FileType::Fifo,
                    rustix::fs::Mode::from_raw_mode(0o600),
                    0,
                )
                .unwrap();
                std::fs::write(&plain, "*.o\n").unwrap();
                std::fs::rename(&plain, &target).unwrap();
                std::fs::rename(&fifo, &target).unwrap();
                n += 1;
            }
            // Whatever is left is a regular file, so a walk stuck on a FIFO can end.
            for i in 0..20 {
                let left = root.join(format!("sub{i}/.gitignore"));
                let _ = std::fs::remove_file(&left);
                std::fs::write(left, "").unwrap();
            }
        })
    };
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let walker = {
        let root = root.clone();
        std::thread::spawn(move || {
            for _ in 0..400 {
                let _ = workspace_files(&root, 10_000);
                done_tx.send(()).unwrap();
            }
        })
    };
    let mut walks = 0;
    while walks < 400 {
        if done_rx.recv_timeout(Duration::from_secs(20)).is_err() {
            stop.store(true, Ordering::Relaxed);
            panic!("a walk blocked on an ignore file after {walks} walks");
        }
        walks += 1;
    }
    stop.store(true, Ordering::Relaxed);
    walker.join().unwrap();
    flipper.join().unwrap();
}
