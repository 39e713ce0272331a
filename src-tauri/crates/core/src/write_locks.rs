//! Calls that change the same place run one after another, so the second sees the first's
//! result (two edits of one file in a turn both land). Calls on different files still run
//! at once; a call that may change anything (bash) runs alone among writers, in this
//! process and, through a locked file, in every other Paddock process working in the same
//! folder: nothing another session writes can slip in between the checks a bash call's
//! wall makes (the git front's) and what the command then reads.

use std::collections::HashMap;
use std::fs::{File, TryLockError};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard, OwnedRwLockReadGuard, RwLock};

/// The first wait for another process's lock, doubled up to [`MAX_POLL`].
const FIRST_POLL: Duration = Duration::from_millis(5);
const MAX_POLL: Duration = Duration::from_millis(100);

/// What a call may change, as its tool declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteScope {
    /// Nothing (reads, searches).
    None,
    /// One file, by a key that names it the same however the model spelled it (the path as
    /// resolved beneath the workspace).
    Path(String),
    /// Anything in the workspace (a shell command, an MCP tool).
    Workspace,
}

/// The write locks of one workspace. Share one between every agent (teammates included)
/// working in it.
#[derive(Debug, Default)]
pub struct WriteLocks {
    workspace: Arc<RwLock<()>>,
    paths: Mutex<HashMap<String, Weak<AsyncMutex<()>>>>,
    /// The file every Paddock process working in this workspace locks as well: shared for
    /// one file's writer, exclusive for a call that may change anything.
    across: Option<PathBuf>,
}

/// Held while the call runs.
#[derive(Debug, Default)]
pub struct WriteGuard {
    _here: Here,
    /// Unlocked when closed.
    _across: Option<File>,
}

#[derive(Debug, Default)]
enum Here {
    #[default]
    None,
    Path {
        _shared: OwnedRwLockReadGuard<()>,
        _path: OwnedMutexGuard<()>,
    },
    Workspace {
        _alone: tokio::sync::OwnedRwLockWriteGuard<()>,
    },
}

impl WriteLocks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Locks that other processes taking theirs on the same `file` respect too. Where the
    /// file cannot be opened or locked, calls still wait for each other in this process.
    pub fn across_processes(file: PathBuf) -> Self {
        Self {
            across: Some(file),
            ..Self::default()
        }
    }

    /// Waits until a call with `scope` may run.
    pub async fn lock(&self, scope: &WriteScope) -> WriteGuard {
        let here = match scope {
            WriteScope::None => return WriteGuard::default(),
            WriteScope::Workspace => Here::Workspace {
                _alone: self.workspace.clone().write_owned().await,
            },
            WriteScope::Path(key) => Here::Path {
                _shared: self.workspace.clone().read_owned().await,
                _path: self.path_lock(key).lock_owned().await,
            },
        };
        let across = match &self.across {
            Some(file) => lock_file(file, *scope == WriteScope::Workspace).await,
            None => None,
        };
        WriteGuard {
            _here: here,
            _across: across,
        }
    }

    fn path_lock(&self, key: &str) -> Arc<AsyncMutex<()>> {
        let mut paths = self.paths.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(lock) = paths.get(key).and_then(Weak::upgrade) {
            return lock;
        }
        // Forget locks nobody holds, so the map stays as small as the calls in flight.
        paths.retain(|_, weak| weak.strong_count() > 0);
        let lock = Arc::new(AsyncMutex::new(()));
        paths.insert(key.to_owned(), Arc::downgrade(&lock));
        lock
    }
}

/// The file at `path`, locked (`exclusive` or shared) once no other process holds it
/// otherwise; polled, so a cancelled wait leaves no thread behind.
async fn lock_file(path: &std::path::Path, exclusive: bool) -> Option<File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .ok()?;
    let mut wait = FIRST_POLL;
    loop {
        let tried = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match tried {
            Ok(()) => return Some(file),
            Err(TryLockError::WouldBlock) => {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(MAX_POLL);
            }
            Err(TryLockError::Error(_)) => return None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test(start_paused = true)]
    async fn same_path_waits_other_paths_do_not() {
        let locks = Arc::new(WriteLocks::new());
        let a = WriteScope::Path("a".into());
        let held = locks.lock(&a).await;
        let other = tokio::time::timeout(
            Duration::from_millis(10),
            locks.lock(&WriteScope::Path("b".into())),
        )
        .await;
        assert!(other.is_ok(), "another path is free");
        let same = tokio::time::timeout(Duration::from_millis(10), locks.lock(&a)).await;
        assert!(same.is_err(), "the same path waits");
        let everything = tokio::time::timeout(
            Duration::from_millis(10),
            locks.lock(&WriteScope::Workspace),
        )
        .await;
        assert!(everything.is_err(), "the workspace waits for a path");
        drop(held);
        drop(other);
        let _now = locks.lock(&a).await;
        assert!(
            tokio::time::timeout(Duration::from_millis(10), locks.lock(&WriteScope::None))
                .await
                .is_ok()
        );
    }

    #[tokio::test(start_paused = true)]
    async fn unheld_path_locks_are_forgotten() {
        let locks = WriteLocks::new();
        for i in 0..100 {
            drop(locks.lock(&WriteScope::Path(format!("f{i}"))).await);
        }
        let _g = locks.lock(&WriteScope::Path("last".into())).await;
        assert!(locks.paths.lock().unwrap().len() <= 2);
    }

    /// Two processes on one folder (two lockers of one file: `flock` locks belong to each
    /// open file, so two here behave as two processes would): a call that may change
    /// anything waits for the other's file writer, and file writers share. Fails without
    /// the file lock: the second locker would not wait at all.
    #[tokio::test]
    async fn another_process_waits_for_a_call_that_may_change_anything() {
        let file = std::env::temp_dir().join(format!("paddock-writes-{}.lock", std::process::id()));
        let one = WriteLocks::across_processes(file.clone());
        let two = WriteLocks::across_processes(file);
        let alone = one.lock(&WriteScope::Workspace).await;
        let waits = tokio::time::timeout(
            Duration::from_millis(150),
            two.lock(&WriteScope::Path("a".into())),
        )
        .await;
        assert!(
            waits.is_err(),
            "a file write waited for the other's bash call"
        );
        drop(alone);
        let writing = tokio::time::timeout(
            Duration::from_secs(5),
            two.lock(&WriteScope::Path("a".into())),
        )
        .await
        .expect("free once the call ended");
        let beside = tokio::time::timeout(
            Duration::from_secs(5),
            one.lock(&WriteScope::Path("b".into())),
        )
        .await;
        assert!(beside.is_ok(), "file writers of two processes share");
        drop(beside);
        let everything =
            tokio::time::timeout(Duration::from_millis(150), one.lock(&WriteScope::Workspace))
                .await;
        assert!(everything.is_err(), "bash waits for the other's writer");
        drop(writing);
        let _ = std::fs::remove_file(
            std::env::temp_dir().join(format!("paddock-writes-{}.lock", std::process::id())),
        );
    }
}
