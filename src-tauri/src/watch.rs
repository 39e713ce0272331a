//! Live workspace updates: a notify watcher on the workspace root whose events are debounced
//! (bursts of writes become one change) before they reach the window.
//!
//! The default workspace (`.agent-workspace`) usually does not exist until the agent's first
//! write; until then its parent is watched (not recursively) and the root is picked up the
//! moment it appears.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use notify::{RecommendedWatcher, RecursiveMode, Watcher};
use paddock_host::display_rel;
use paddock_protocol::WorkspaceChange;

use crate::error::{AppResult, internal};

/// Quiet time that ends a burst.
pub const DEBOUNCE: Duration = Duration::from_millis(200);
/// A steady stream of changes is still reported this often.
const MAX_DELAY: Duration = Duration::from_secs(1);
/// Paths listed from a newly created folder at most.
const MAX_NEW_DIR_ENTRIES: usize = 1_000;

/// A running watcher; dropping it stops it (and its debounce thread).
pub struct WorkspaceWatch {
    _watcher: Arc<Mutex<RecommendedWatcher>>,
}

/// Watches `root` and calls `on_change` with the changed paths, relative to the root.
pub fn watch(
    root: &Path,
    on_change: impl Fn(WorkspaceChange) + Send + 'static,
) -> AppResult<WorkspaceWatch> {
    let (tx, rx) = mpsc::channel::<(PathBuf, bool)>();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        if let Ok(event) = res {
            let created = event.kind.is_create();
            for path in event.paths {
                let _ = tx.send((path, created));
            }
        }
    })
    .map_err(|e| internal(format!("cannot watch the workspace: {e}")))?;

    // Report paths under the root's real location as well as the configured one.
    let real = root.canonicalize().ok();
    let watching_root = root.is_dir();
    if watching_root {
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|e| internal(format!("cannot watch {}: {e}", root.display())))?;
    } else {
        let parent = root
            .ancestors()
            .skip(1)
            .find(|a| a.is_dir())
            .ok_or_else(|| internal(format!("no folder above {} to watch", root.display())))?;
        watcher
            .watch(parent, RecursiveMode::NonRecursive)
            .map_err(|e| internal(format!("cannot watch {}: {e}", parent.display())))?;
    }
    let watcher = Arc::new(Mutex::new(watcher));
    let debounce = Debounce {
        root: root.to_path_buf(),
        real,
        watching_root,
        watcher: Arc::downgrade(&watcher),
    };
    std::thread::Builder::new()
        .name("workspace-watch".into())
        .spawn(move || debounce.run(&rx, on_change))
        .map_err(|e| internal(format!("cannot start the workspace watcher: {e}")))?;
    Ok(WorkspaceWatch { _watcher: watcher })
}

struct Debounce {
    root: PathBuf,
    real: Option<PathBuf>,
    watching_root: bool,
    watcher: Weak<Mutex<RecommendedWatcher>>,
}

impl Debounce {
    /// Ends when the watcher is dropped (its sender goes with it).
    fn run(mut self, rx: &mpsc::Receiver<(PathBuf, bool)>, on_change: impl Fn(WorkspaceChange)) {
        while let Ok((first, created)) = rx.recv() {
            let mut changed = BTreeSet::new();
            let mut new_dirs = Vec::new();
            self.add(&mut changed, &mut new_dirs, &first, created);
            let started = Instant::now();
            loop {
                match rx.recv_timeout(DEBOUNCE) {
                    Ok((path, created)) => self.add(&mut changed, &mut new_dirs, &path, created),
                    Err(RecvTimeoutError::Timeout) => break,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                if started.elapsed() >= MAX_DELAY {
                    break;
                }
            }
            // Files written into a folder right after it was made can beat the watch on it
            // (inotify adds it only once it sees the folder): new folders are listed once
            // the burst is over, when those writes have happened.
            for dir in new_dirs {
                for entry in walk(&dir, MAX_NEW_DIR_ENTRIES) {
                    if let Some(rel) = self.relative(&entry) {
                        changed.insert(display_rel(&rel));
                    }
                }
            }
            if !changed.is_empty() {
                on_change(WorkspaceChange {
                    paths: changed.into_iter().collect(),
                });
            }
        }
    }

    fn add(
        &mut self,
        changed: &mut BTreeSet<String>,
        new_dirs: &mut Vec<PathBuf>,
        path: &Path,
        created: bool,
    ) {
        if !self.watching_root && self.root.is_dir() {
            self.start_watching_root();
            changed.insert(".".to_owned());
        }
        let Some(rel) = self.relative(path) else {
            return;
        };
        changed.insert(display_rel(&rel));
        if created && path.is_dir() {
            new_dirs.push(path.to_path_buf());
        }
    }

    fn relative(&self, path: &Path) -> Option<PathBuf> {
        let rel = path.strip_prefix(&self.root).ok().or_else(|| {
            self.real
                .as_deref()
                .and_then(|real| path.strip_prefix(real).ok())
        })?;
        Some(rel.to_path_buf())
    }

    /// The root appeared: watch it recursively from now on.
    fn start_watching_root(&mut self) {
        let Some(watcher) = self.watcher.upgrade() else {
            return;
        };
        let mut watcher = watcher.lock().unwrap_or_else(PoisonError::into_inner);
        match watcher.watch(&self.root, RecursiveMode::Recursive) {
            Ok(()) => {
                self.watching_root = true;
                self.real = self.root.canonicalize().ok();
            }
            Err(e) => tracing::warn!("cannot watch {}: {e}", self.root.display()),
        }
    }
}

/// Up to `max` paths under `dir`, symlinks not followed.
fn walk(dir: &Path, max: usize) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if found.len() >= max {
                return found;
            }
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
            found.push(entry.path());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Waits for a change that mentions `path`, collecting everything seen.
    fn wait_for(rx: &mpsc::Receiver<WorkspaceChange>, path: &str) -> Vec<WorkspaceChange> {
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut seen = Vec::new();
        while Instant::now() < deadline {
            if let Ok(change) = rx.recv_timeout(Duration::from_millis(100)) {
                let hit = change.paths.iter().any(|p| p == path);
                seen.push(change);
                if hit {
                    return seen;
                }
            }
        }
        panic!("no change for {path} within 10 s; saw {seen:?}");
    }

    fn watcher(root: &Path) -> (WorkspaceWatch, mpsc::Receiver<WorkspaceChange>) {
        let (tx, rx) = mpsc::channel();
        let w = watch(root, move |c| {
            let _ = tx.send(c);
        })
        .unwrap();
        (w, rx)
    }

    #[test]
    fn a_burst_of_writes_is_one_change() {
        let dir = tempfile::tempdir().unwrap();
        let (_w, rx) = watcher(dir.path());
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        for i in 0..20 {
            std::fs::write(dir.path().join(format!("sub/f{i}.txt")), "x").unwrap();
        }
        let seen = wait_for(&rx, "sub/f19.txt");
        let batches_with_files = seen
            .iter()
            .filter(|c| c.paths.iter().any(|p| p.starts_with("sub/f")))
            .count();
        assert!(batches_with_files <= 2, "not debounced: {seen:?}");
    }

    #[test]
    fn a_root_created_later_is_picked_up() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join(".agent-workspace");
        let (_w, rx) = watcher(&root);
        std::fs::write(dir.path().join("unrelated.txt"), "x").unwrap();
        std::fs::create_dir(&root).unwrap();
        wait_for(&rx, ".");
        // The root is now watched recursively: a file in a new subfolder shows up.
        std::fs::create_dir(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/notes.md"), "hi").unwrap();
        let seen = wait_for(&rx, "docs/notes.md");
        assert!(
            seen.iter()
                .all(|c| c.paths.iter().all(|p| p != "unrelated.txt")),
            "paths outside the root are not reported: {seen:?}"
        );
    }

    #[test]
    fn dropping_the_watch_stops_reports() {
        let dir = tempfile::tempdir().unwrap();
        let (w, rx) = watcher(dir.path());
        std::fs::write(dir.path().join("a.txt"), "x").unwrap();
        wait_for(&rx, "a.txt");
        drop(w);
        std::fs::write(dir.path().join("b.txt"), "x").unwrap();
        // The debounce thread ends with the watcher, so the channel closes.
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Ok(c) => assert!(!c.paths.contains(&"b.txt".to_owned()), "{c:?}"),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    assert!(Instant::now() < deadline, "the watcher thread did not stop");
                }
            }
        }
    }
}
