//! The app's state behind every command: the session store, the keychain, the open projects,
//! the running prompts and the workspace watchers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_host::KeyStore;
use paddock_kernel::session::SessionStore;

use crate::project::ProjectState;
use crate::recent::RecentProjects;
use crate::runs::Runs;
use crate::watch::WorkspaceWatch;

pub struct Desktop {
    pub store: SessionStore,
    pub recent: RecentProjects,
    pub keys: Arc<dyn KeyStore>,
    pub runs: Arc<Runs>,
    /// Bumped when a key is stored or deleted, so runtimes pick up the new key.
    keys_generation: AtomicU64,
    projects: Mutex<HashMap<PathBuf, Arc<ProjectState>>>,
    /// One watcher per window label.
    watchers: Mutex<HashMap<String, WorkspaceWatch>>,
}

impl Desktop {
    /// Sessions under `<data_dir>/sessions` (shared with the CLI), the recent list beside them.
    pub fn new(data_dir: &Path, keys: Arc<dyn KeyStore>) -> Self {
        Self {
            store: SessionStore::new(data_dir.join("sessions")),
            recent: RecentProjects::new(data_dir),
            keys,
            runs: Arc::default(),
            keys_generation: AtomicU64::new(0),
            projects: Mutex::default(),
            watchers: Mutex::default(),
        }
    }

    /// The state of the project at `root` (a canonical path), created on first use.
    pub fn project(&self, root: &Path) -> Arc<ProjectState> {
        lock(&self.projects)
            .entry(root.to_path_buf())
            .or_insert_with(|| Arc::new(ProjectState::new(root.to_path_buf())))
            .clone()
    }

    /// The open project whose window has this label.
    pub fn project_for_window(&self, label: &str) -> Option<PathBuf> {
        lock(&self.projects)
            .keys()
            .find(|root| crate::windows::label(root) == label)
            .cloned()
    }

    pub fn keys_generation(&self) -> u64 {
        self.keys_generation.load(Ordering::Relaxed)
    }

    pub fn keys_changed(&self) {
        self.keys_generation.fetch_add(1, Ordering::Relaxed);
    }

    /// Replaces the window's watcher (dropping the old one stops it).
    pub fn set_watcher(&self, window: &str, watch: WorkspaceWatch) {
        lock(&self.watchers).insert(window.to_owned(), watch);
    }

    pub fn drop_watcher(&self, window: &str) {
        lock(&self.watchers).remove(window);
    }

    /// Everything that must stop with the app: runs cancelled, MCP servers shut down.
    pub async fn shutdown(&self) {
        let projects: Vec<Arc<ProjectState>> = lock(&self.projects).values().cloned().collect();
        for project in projects {
            self.runs.stop_project(project.root());
            project.shutdown().await;
        }
        lock(&self.watchers).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
