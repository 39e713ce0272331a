//! Calls that change the same place run one after another, so the second sees the first's
//! result (two edits of one file in a turn both land). Calls on different files still run
//! at once; a call that may change anything (bash) runs alone among writers.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard, OwnedRwLockReadGuard, RwLock};

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
}

/// Held while the call runs.
#[derive(Debug)]
pub enum WriteGuard {
    None,
    Path(OwnedRwLockReadGuard<()>, OwnedMutexGuard<()>),
    Workspace(tokio::sync::OwnedRwLockWriteGuard<()>),
}

impl WriteLocks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Waits until a call with `scope` may run.
    pub async fn lock(&self, scope: &WriteScope) -> WriteGuard {
        match scope {
            WriteScope::None => WriteGuard::None,
            WriteScope::Workspace => {
                WriteGuard::Workspace(self.workspace.clone().write_owned().await)
            }
            WriteScope::Path(key) => {
                let shared = self.workspace.clone().read_owned().await;
                let path = self.path_lock(key).lock_owned().await;
                WriteGuard::Path(shared, path)
            }
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
}
