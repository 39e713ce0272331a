//! A workspace in a temporary folder, its checkpoint store beside it, and a full listing
//! of the workspace to compare states with.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use paddock_changes::{CheckpointStore, Snapshot, StoreOptions};
use paddock_guard::PathGuard;

/// Longer than the store's racy window: files older than this are trusted by the cache.
pub const SETTLE: Duration = Duration::from_millis(2_100);

pub struct Fixture {
    pub tmp: tempfile::TempDir,
    pub ws: PathBuf,
    pub guard: PathGuard,
    pub store: CheckpointStore,
}

impl Fixture {
    /// With the change journal, cross-checking every snapshot against a walk.
    pub fn new() -> Self {
        Self::with(StoreOptions {
            journal: true,
            cross_check_every: 1,
            share_with_git: true,
        })
    }

    /// As before the journal and git sharing: every snapshot walks, every object copied.
    pub fn walking() -> Self {
        Self::with(StoreOptions {
            journal: false,
            cross_check_every: 0,
            share_with_git: false,
        })
    }

    pub fn with(options: StoreOptions) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let ws = tmp.path().join("project/ws");
        std::fs::create_dir_all(&ws).unwrap();
        let guard = PathGuard::new(&ws).inside(tmp.path().join("project"));
        let store =
            CheckpointStore::open_with(tmp.path().join("data/checkpoints/p1"), options).unwrap();
        Self {
            tmp,
            ws,
            guard,
            store,
        }
    }

    pub fn store_dir(&self) -> PathBuf {
        self.tmp.path().join("data/checkpoints/p1")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.ws.join(rel)
    }

    /// Writes a file (parents made) with exactly `mode`.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>, mode: u32) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content).unwrap();
        chmod(&path, mode);
    }

    pub fn mkdir(&self, rel: &str, mode: u32) {
        let path = self.path(rel);
        std::fs::create_dir_all(&path).unwrap();
        chmod(&path, mode);
    }

    pub fn snapshot(&self) -> Snapshot {
        self.store.snapshot(&self.guard).unwrap()
    }

    /// The id of the empty workspace (a folder that does not exist records as empty).
    pub fn empty_id(&self) -> String {
        let missing = PathGuard::new(self.tmp.path().join("nowhere"));
        self.store.snapshot(&missing).unwrap().id
    }

    /// The paths a checkpoint holds, sorted.
    pub fn paths(&self, id: &str) -> Vec<String> {
        self.store
            .changes(&self.empty_id(), id)
            .unwrap()
            .into_iter()
            .map(|c| c.path)
            .collect()
    }

    pub fn listing(&self) -> BTreeMap<String, String> {
        listing(&self.ws)
    }
}

impl Drop for Fixture {
    /// Every test with the journal also checks it never disagreed with a walk.
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let stats = self.store.journal_stats();
            assert_eq!(
                stats.disagreements, 0,
                "the journal missed a change: {stats:?}"
            );
        }
    }
}

/// Runs `script` with `sh -c` in `dir` (as the agent's bash would change the workspace).
pub fn sh(dir: &Path, script: &str) {
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "{script}");
}

pub fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

pub fn mkfifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
}

/// Everything beneath `dir`: kind, permission bits, and content or link target.
pub fn listing(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    walk(dir, "", &mut out);
    out
}

fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let mode = meta.mode() & 0o7777;
        let ft = meta.file_type();
        let what = if ft.is_symlink() {
            format!(
                "link -> {}",
                std::fs::read_link(entry.path()).unwrap().display()
            )
        } else if ft.is_dir() {
            walk(&entry.path(), &rel, out);
            format!("dir {mode:o}")
        } else if ft.is_file() {
            let content = std::fs::read(entry.path()).unwrap();
            format!("file {mode:o} {}", String::from_utf8_lossy(&content))
        } else {
            format!("special {mode:o}")
        };
        out.insert(rel, what);
    }
}
