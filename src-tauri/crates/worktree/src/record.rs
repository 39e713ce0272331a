//! Where worktrees live and what Paddock remembers of each: a record per worktree in
//! Paddock's data folder (hidden from bash), the checkout in a folder of its own beside it.

pub(crate) mod land;
pub(crate) mod plain;

use std::io::Write;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use paddock_protocol::{WorktreeInfo, WorktreeState};
use serde::{Deserialize, Serialize};

pub use crate::layout::Layout;
use crate::{WorktreeError, io};

/// What is stored: what the shells see, and where the checkout and the project are.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Record {
    pub info: WorktreeInfo,
    /// The clone's top folder.
    pub checkout: PathBuf,
    /// The project's repository top folder.
    pub top: PathBuf,
    /// The project folder below `top`.
    pub prefix: PathBuf,
    /// The project's shared git folder (the clone's alternates point into it).
    pub common_dir: PathBuf,
}

/// A session's worktree as recorded.
#[derive(Debug, Clone)]
pub struct Worktree {
    pub(crate) record: Record,
    pub(crate) layout: Layout,
}

impl Worktree {
    pub fn info(&self) -> &WorktreeInfo {
        &self.record.info
    }

    pub fn name(&self) -> &str {
        &self.record.info.name
    }

    pub fn branch(&self) -> &str {
        &self.record.info.branch
    }

    /// The clone's top folder.
    pub fn checkout(&self) -> &Path {
        &self.record.checkout
    }

    /// The project's folder inside the checkout: the session's project root.
    pub fn project_dir(&self) -> PathBuf {
        self.record.checkout.join(&self.record.prefix)
    }

    /// The top folder of the project's own repository (the user's main checkout).
    pub fn top(&self) -> &Path {
        &self.record.top
    }

    /// The project repository's shared git folder, which the checkout reads objects from.
    pub fn common_dir(&self) -> &Path {
        &self.record.common_dir
    }

    pub fn is_active(&self) -> bool {
        matches!(
            self.record.info.state,
            WorktreeState::Active | WorktreeState::Merged { .. }
        )
    }

    /// Records which session works here (its first prompt made it).
    pub fn bind_session(&mut self, session: &str) -> Result<(), WorktreeError> {
        self.record.info.session = Some(session.to_owned());
        self.save()
    }

    /// A merged worktree a session works in again has work not merged yet.
    pub fn reopen(&mut self) -> Result<(), WorktreeError> {
        if matches!(self.record.info.state, WorktreeState::Merged { .. }) {
            self.record.info.state = WorktreeState::Active;
            self.save()?;
        }
        Ok(())
    }

    pub(crate) fn save(&self) -> Result<(), WorktreeError> {
        save(&self.layout, &self.record)
    }

    /// The record leaves the list (its name is free again) but stays as a tombstone, so the
    /// session that worked here is refused rather than resumed in the project's folder.
    pub(crate) fn forget(&mut self) -> Result<(), WorktreeError> {
        self.record.info.state = WorktreeState::Discarded;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let tomb = self
            .layout
            .records
            .join(format!("{}.{nanos:x}.{TOMBSTONE}", self.name()));
        write_record(&tomb, &self.record)?;
        let path = self.layout.record_path(self.name());
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io(format!("cannot remove {}", path.display()))(e)),
        }
    }
}

pub(crate) fn private_dir(dir: &Path) -> Result<(), WorktreeError> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io(format!("cannot create {}", dir.display())))
}

/// The ending of a discarded worktree's record.
const TOMBSTONE: &str = "discarded";

pub(crate) fn save(layout: &Layout, record: &Record) -> Result<(), WorktreeError> {
    private_dir(&layout.records)?;
    write_record(&layout.record_path(&record.info.name), record)
}

fn write_record(path: &Path, record: &Record) -> Result<(), WorktreeError> {
    let path = path.to_path_buf();
    let tmp = path.with_extension("tmp");
    let text = serde_json::to_vec_pretty(record).map_err(|e| WorktreeError::Record {
        path: path.clone(),
        detail: e.to_string(),
    })?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(io(format!("cannot write {}", tmp.display())))?;
    file.write_all(&text)
        .and_then(|()| file.sync_all())
        .map_err(io(format!("cannot write {}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(io(format!("cannot write {}", path.display())))
}

fn load(layout: &Layout, path: &Path) -> Result<Worktree, WorktreeError> {
    let bytes = std::fs::read(path).map_err(io(format!("cannot read {}", path.display())))?;
    let record: Record = serde_json::from_slice(&bytes).map_err(|e| WorktreeError::Record {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })?;
    Ok(Worktree {
        record,
        layout: layout.clone(),
    })
}

/// The project's worktrees, oldest first. An unreadable record is skipped with a warning.
pub fn list(layout: &Layout) -> Result<Vec<Worktree>, WorktreeError> {
    let entries = match std::fs::read_dir(&layout.records) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(format!("cannot list {}", layout.records.display()))(e)),
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        match load(layout, &path) {
            Ok(w) => out.push(w),
            Err(e) => tracing::warn!("worktree record skipped: {e}"),
        }
    }
    out.sort_by(|a, b| {
        (a.info().created.as_str(), a.name()).cmp(&(b.info().created.as_str(), b.name()))
    });
    Ok(out)
}

/// The worktree named `name` (a session id names its worktree too).
pub fn open(layout: &Layout, name: &str) -> Result<Worktree, WorktreeError> {
    if crate::valid_name(name) {
        let path = layout.record_path(name);
        if path.is_file() {
            return load(layout, &path);
        }
    }
    open_for_session(layout, name)?.ok_or_else(|| WorktreeError::Unknown {
        name: name.to_owned(),
    })
}

/// The worktree a session works in, if it has one (a discarded one too: see
/// [`WorktreeState::Discarded`]).
pub fn open_for_session(layout: &Layout, session: &str) -> Result<Option<Worktree>, WorktreeError> {
    let found = list(layout)?
        .into_iter()
        .find(|w| w.info().session.as_deref() == Some(session));
    if found.is_some() {
        return Ok(found);
    }
    let Ok(entries) = std::fs::read_dir(&layout.records) else {
        return Ok(None);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|e| e == TOMBSTONE)
            && let Ok(w) = load(layout, &path)
            && w.info().session.as_deref() == Some(session)
        {
            return Ok(Some(w));
        }
    }
    Ok(None)
}
