//! The recent-projects list: a small JSON file in Paddock's data directory (paths and times,
//! never anything secret).

use std::path::{Path, PathBuf};

use paddock_protocol::RecentProject;
use serde::{Deserialize, Serialize};

use crate::error::{AppResult, internal};
use crate::projects::name_of;

/// Entries kept.
const MAX_RECENT: usize = 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
struct Entry {
    path: String,
    last_opened: String,
}

/// The list, stored at `<data dir>/recent-projects.json`.
#[derive(Debug, Clone)]
pub struct RecentProjects {
    file: PathBuf,
}

impl RecentProjects {
    pub fn new(data_dir: &Path) -> Self {
        Self {
            file: data_dir.join("recent-projects.json"),
        }
    }

    /// Newest first. A missing or unreadable file is an empty list (it is only a convenience).
    pub fn list(&self) -> Vec<RecentProject> {
        self.read()
            .into_iter()
            .map(|e| {
                let path = PathBuf::from(&e.path);
                RecentProject {
                    name: name_of(&path),
                    exists: path.is_dir(),
                    path: e.path,
                    last_opened: crate::local_time::local(&e.last_opened),
                }
            })
            .collect()
    }

    /// Moves `root` to the top.
    pub fn touch(&self, root: &Path) -> AppResult<()> {
        let path = root.to_string_lossy().into_owned();
        let mut entries = self.read();
        entries.retain(|e| e.path != path);
        entries.insert(
            0,
            Entry {
                path,
                last_opened: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                    .to_string(),
            },
        );
        entries.truncate(MAX_RECENT);
        self.write(&entries)
    }

    fn read(&self) -> Vec<Entry> {
        match std::fs::read_to_string(&self.file) {
            Ok(text) => serde_json::from_str(&text).unwrap_or_else(|e| {
                tracing::warn!("ignoring unreadable {}: {e}", self.file.display());
                Vec::new()
            }),
            Err(_) => Vec::new(),
        }
    }

    fn write(&self, entries: &[Entry]) -> AppResult<()> {
        let fail = |e: &dyn std::fmt::Display| {
            internal(format!(
                "cannot save the recent projects list {}: {e}",
                self.file.display()
            ))
        };
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        }
        let text = serde_json::to_string_pretty(entries).map_err(|e| fail(&e))?;
        // Written next to the file and renamed, so a crash never leaves half a list.
        let tmp = self
            .file
            .with_extension(format!("json.tmp-{}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|e| fail(&e))?;
        std::fs::rename(&tmp, &self.file).map_err(|e| fail(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_first_without_duplicates() {
        let data = tempfile::tempdir().unwrap();
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let recent = RecentProjects::new(data.path());
        assert!(recent.list().is_empty());
        recent.touch(a.path()).unwrap();
        recent.touch(b.path()).unwrap();
        recent.touch(a.path()).unwrap();
        let list = recent.list();
        let paths: Vec<&str> = list.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(
            paths,
            [a.path().to_str().unwrap(), b.path().to_str().unwrap()]
        );
        assert!(list.iter().all(|r| r.exists));
        drop(b);
        assert!(!recent.list()[1].exists, "a removed folder is flagged");
    }

    #[test]
    fn a_broken_file_reads_as_empty_and_is_replaced() {
        let data = tempfile::tempdir().unwrap();
        std::fs::write(data.path().join("recent-projects.json"), "[{").unwrap();
        let recent = RecentProjects::new(data.path());
        assert!(recent.list().is_empty());
        recent.touch(data.path()).unwrap();
        assert_eq!(recent.list().len(), 1);
    }
}
