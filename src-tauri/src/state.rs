//! The app's state behind every command: the run service (sessions, keys, live runs), the
//! recent list, the open projects, the workspace watchers and the feeds to the pages.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_host::session::SessionStore;
use paddock_host::trust::TrustStore;
use paddock_host::{KeyStore, LiveProject, LiveRuns, RunService, ServerPath};
use paddock_protocol::{AgentEvent, WorkspaceChange};

use crate::feed::Feeds;
use crate::recent::RecentProjects;
use crate::watch::WorkspaceWatch;

pub struct Desktop {
    pub service: Arc<RunService>,
    pub recent: RecentProjects,
    projects: Mutex<HashMap<PathBuf, Arc<LiveProject>>>,
    /// One watcher per window label.
    watchers: Mutex<HashMap<String, WorkspaceWatch>>,
    /// Runs' events and workspace changes, waiting for their pages to ask.
    pub events: Feeds<AgentEvent>,
    pub changes: Feeds<WorkspaceChange>,
}

impl Desktop {
    /// Sessions under `<data_dir>/sessions` (shared with the CLI), the recent list beside them;
    /// folder trust in `trust` (shared with the CLI too).
    pub fn new(data_dir: &Path, trust: TrustStore, keys: Arc<dyn KeyStore>) -> Self {
        Self {
            service: Arc::new(RunService::new(
                SessionStore::new(data_dir.join("sessions")),
                keys,
                trust,
            )),
            recent: RecentProjects::new(data_dir),
            projects: Mutex::default(),
            watchers: Mutex::default(),
            events: Feeds::default(),
            changes: Feeds::default(),
        }
    }

    pub fn store(&self) -> &SessionStore {
        self.service.store()
    }

    pub fn keys(&self) -> Arc<dyn KeyStore> {
        self.service.keys().clone()
    }

    pub fn runs(&self) -> &Arc<LiveRuns> {
        self.service.runs()
    }

    pub fn trust(&self) -> &TrustStore {
        self.service.trust()
    }

    /// The project at `root` (a canonical path), created on first use. Its MCP servers get
    /// the login shell's PATH: an app started from a launcher has a bare one.
    pub fn project(&self, root: &Path) -> Arc<LiveProject> {
        lock(&self.projects)
            .entry(root.to_path_buf())
            .or_insert_with(|| {
                Arc::new(
                    LiveProject::new(root.to_path_buf(), ServerPath::LoginShell)
                        .with_keys(self.keys()),
                )
            })
            .clone()
    }

    /// The open project whose window has this label.
    pub fn project_for_window(&self, label: &str) -> Option<PathBuf> {
        lock(&self.projects)
            .keys()
            .find(|root| crate::windows::label(root) == label)
            .cloned()
    }

    /// Replaces the window's watcher (dropping the old one stops it).
    pub fn set_watcher(&self, window: &str, watch: WorkspaceWatch) {
        lock(&self.watchers).insert(window.to_owned(), watch);
    }

    /// `watch_workspace`: the window's watcher on the project's workspace, its changes on a
    /// new feed (replacing the watcher ends the old feed, whose page is told it is done).
    pub fn watch_workspace(&self, window: &str, root: &Path) -> crate::error::AppResult<u64> {
        let workspace = paddock_host::workspace::watchable_root(self.trust(), root)?;
        let (feed, writer) = self.changes.open(window);
        match crate::watch::watch(&workspace, move |change| writer.push(change)) {
            Ok(watch) => {
                self.set_watcher(window, watch);
                Ok(feed)
            }
            Err(e) => {
                self.changes.close(window, feed);
                Err(e)
            }
        }
    }

    /// The window closed or loaded a new page: its watcher stops and its feeds go.
    pub fn forget_window(&self, window: &str) {
        lock(&self.watchers).remove(window);
        self.events.forget(window);
        self.changes.forget(window);
    }

    /// Everything that must stop with the app: runs cancelled, MCP servers shut down.
    pub async fn shutdown(&self) {
        let projects: Vec<Arc<LiveProject>> = lock(&self.projects).values().cloned().collect();
        for project in projects {
            self.runs().stop_project(project.root());
            project.shutdown().await;
        }
        lock(&self.watchers).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
