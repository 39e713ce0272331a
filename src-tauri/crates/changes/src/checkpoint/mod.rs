//! Checkpoints of the workspace: before each turn that may change it, the workspace is
//! recorded in a private, content-addressed store (git-like: file contents and folder trees
//! named by their sha256), so the user can see what a run changed, bash included, and put
//! the files back to any earlier turn, and undo that.
//!
//! Incremental: unchanged files are not read again (a stat cache, kept in `index.json`
//! across processes) and unchanged folders share their trees, so a turn that changed three
//! files stores three blobs and the trees on their paths. An unchanged workspace gives the
//! same id. Left out, and left alone by a restore: `.git` and `.paddock`, folders the
//! ignore files ignore, files over [`MAX_FILE_BYTES`] and special files (the last two
//! reported in [`Snapshot::skipped`]).

mod cache;
mod compare;
mod objects;
mod recent;
mod restore;
mod rules;
mod scan;
mod tree;

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use paddock_guard::{PathError, PathGuard, Root};
use paddock_protocol::{ChangeSummary, FileChange};
use serde::{Deserialize, Serialize};

use cache::StatCache;
use compare::{Delta, entry_at, read_tree};
use objects::{ObjectId, Objects, io_error, make_private_dir};
use tree::Kind;

/// Larger files are not kept (reported; a rewind leaves them as they are).
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Largest ignore file read (a real one is a few kilobytes).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1024 * 1024;
/// Files, folders and links in one checkpoint at most.
pub const MAX_ENTRIES: usize = 200_000;
/// Folders nested deeper are not kept (reported), which also bounds the scan's recursion.
pub const MAX_DEPTH: usize = 256;
/// The permission bits kept.
const PERMISSION_BITS: u32 = 0o777;
const OBJECTS_DIR: &str = "objects";
const INDEX_FILE: &str = "index.json";
const JOURNAL_FILE: &str = "journal.json";

/// A recorded workspace state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Snapshot {
    /// The checkpoint's id (its root tree's hash): the same for the same workspace.
    pub id: String,
    /// Regular files kept.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes of the objects this snapshot added to the store.
    pub stored: u64,
    /// Files read (hashed) by this scan; the others matched the stat cache.
    pub hashed: usize,
    /// What was not kept, and why.
    pub skipped: Vec<Skipped>,
}

/// A path a checkpoint does not keep (or an ignore file it could not use).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skipped {
    /// Relative to the workspace root, `/`-separated.
    pub path: String,
    pub reason: SkipReason,
}

impl Skipped {
    /// A line for the user.
    pub fn notice(&self) -> String {
        format!("{}: {}", self.path, self.reason)
    }
}

/// Why a path is not kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SkipReason {
    #[error(
        "not kept: too large ({bytes} bytes, over {MAX_FILE_BYTES}); a rewind leaves it as it is"
    )]
    TooLarge { bytes: u64 },
    #[error("not kept: a FIFO, socket or device; a rewind leaves it as it is")]
    Special,
    #[error("ignore file not used: {message}")]
    BadIgnoreFile { message: String },
    #[error("not kept: the name is not UTF-8; a rewind leaves it as it is")]
    NotUtf8Name,
    #[error("not kept: cannot be read ({message}); a rewind leaves it as it is")]
    Unreadable { message: String },
    #[error("not kept: folders nested over {max} deep; a rewind leaves it as it is")]
    TooDeep { max: usize },
}

/// Why the store could not do something. The text says what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("checkpoint store: cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: String,
        source: io::Error,
    },
    #[error("workspace: {0}")]
    Workspace(#[from] PathError),
    #[error("'{id}' is not a checkpoint id (64 hexadecimal digits)")]
    BadId { id: String },
    #[error("there is no checkpoint {id} in this store (it may have been pruned)")]
    UnknownCheckpoint { id: String },
    #[error("object {id} is missing from the checkpoint store (pruned or deleted)")]
    MissingObject { id: String },
    #[error(
        "checkpoint {id} cannot be restored: {count} of its objects are missing from the \
         store (first: {first}); nothing was changed"
    )]
    Incomplete {
        id: String,
        count: usize,
        first: String,
    },
    #[error(
        "object {id} in the checkpoint store is damaged (its bytes do not match its name: \
         {path}); the checkpoints that use it cannot be shown or restored"
    )]
    Damaged { id: String, path: String },
    #[error("object {id} in the checkpoint store is not a folder tree: {message}")]
    BadTree { id: String, message: String },
    #[error(
        "the workspace has more than {max} files and folders; checkpoints stop there (add \
         big generated folders such as node_modules/ or target/ to .gitignore)"
    )]
    TooManyEntries { max: usize },
    #[error(
        "a rewind of {root} was interrupted and is not finished; recover it before rewinding \
         again"
    )]
    Pending { root: String },
    #[error(
        "the interrupted rewind in this store was of {journal_root}, not {root}; recover it \
         with that workspace"
    )]
    OtherRoot { journal_root: String, root: String },
    #[error(
        "the rewind journal {path} is damaged ({message}); delete it to go on (the workspace \
         may be partly rewound)"
    )]
    BadJournal { path: String, message: String },
}

/// The checkpoint store of one workspace: `objects/`, `index.json` (the stat cache) and
/// `journal.json` (a restore in progress) under one private folder. Methods take `&self`
/// and may be called from several threads; snapshots and restores run one at a time.
#[derive(Debug)]
pub struct CheckpointStore {
    dir: PathBuf,
    objects: Objects,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    cache: StatCache,
    /// Objects known to be in the store: not looked for again.
    known: HashSet<ObjectId>,
}

impl CheckpointStore {
    /// Opens the store in `dir`, creating it (mode 0700) when missing.
    pub fn open(dir: PathBuf) -> Result<Self, CheckpointError> {
        let objects_dir = dir.join(OBJECTS_DIR);
        for d in [&dir, &objects_dir] {
            make_private_dir(d).map_err(|e| io_error("create", d, e))?;
        }
        let cache = StatCache::load(&dir.join(INDEX_FILE));
        Ok(Self {
            objects: Objects::new(objects_dir),
            state: Mutex::new(State {
                cache,
                known: HashSet::new(),
            }),
            dir,
        })
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records the workspace under `guard`'s root now. A workspace folder that does not
    /// exist yet records as empty.
    pub fn snapshot(&self, guard: &PathGuard) -> Result<Snapshot, CheckpointError> {
        let mut state = self.lock();
        let _shared = self.shared_lock()?;
        let root = match guard.open_root() {
            Ok(root) => root,
            Err(PathError::RootMissing { .. }) => return self.empty_snapshot(&mut state),
            Err(e) => return Err(e.into()),
        };
        let scanned = self.scan(&mut state, &root)?;
        self.log_recent(scanned.id);
        Ok(Snapshot {
            id: scanned.id.to_hex(),
            files: scanned.files,
            bytes: scanned.bytes,
            stored: scanned.stored,
            hashed: scanned.hashed,
            skipped: scanned.skipped,
        })
    }

    fn empty_snapshot(&self, state: &mut State) -> Result<Snapshot, CheckpointError> {
        let bytes = tree::encode(&[]).map_err(|e| io_error("encode", &self.dir, e.into()))?;
        let id = ObjectId::of(&bytes);
        let stored = self.objects.write(id, &bytes)?;
        state.known.insert(id);
        self.log_recent(id);
        Ok(Snapshot {
            id: id.to_hex(),
            files: 0,
            bytes: 0,
            stored,
            hashed: 0,
            skipped: Vec::new(),
        })
    }

    /// Scans the workspace into the store and keeps the new stat cache.
    fn scan(&self, state: &mut State, root: &Root) -> Result<scan::Scanned, CheckpointError> {
        let key = root.real_path().to_string_lossy().into_owned();
        let none = HashMap::new();
        let old = if state.cache.root == key {
            &state.cache.entries
        } else {
            &none
        };
        let mut scanned = scan::Scan::new(root, &self.objects, &mut state.known, old).run()?;
        let entries = std::mem::take(&mut scanned.cache);
        if state.cache.root != key || state.cache.entries != entries {
            state.cache = StatCache { root: key, entries };
            self.save_cache(&state.cache);
        }
        Ok(scanned)
    }

    /// Held while objects are written or read for a restore, so another process's prune
    /// waits its turn (see `recent`).
    fn shared_lock(&self) -> Result<std::fs::File, CheckpointError> {
        recent::shared(&self.dir).map_err(|e| io_error("lock", &self.dir, e))
    }

    fn log_recent(&self, id: ObjectId) {
        if let Err(e) = recent::log(&self.dir, id) {
            // Only a risk if another process prunes within the grace period.
            tracing::warn!(error = %e, "checkpoint not noted as recent");
        }
    }

    fn save_cache(&self, cache: &StatCache) {
        let path = self.dir.join(INDEX_FILE);
        if let Err(e) = cache.save(&path) {
            // Only a cost: the next process hashes the files again.
            tracing::warn!(path = %path.display(), error = %e, "checkpoint index not saved");
        }
    }

    /// A checkpoint id of this store.
    fn checkpoint(&self, id: &str) -> Result<ObjectId, CheckpointError> {
        let parsed = ObjectId::parse(id).ok_or_else(|| CheckpointError::BadId { id: id.into() })?;
        if !self.objects.exists(parsed) {
            return Err(CheckpointError::UnknownCheckpoint { id: id.into() });
        }
        Ok(parsed)
    }

    /// Every path that differs between two checkpoints, with full diffs, sorted by path
    /// (a change of kind is a deletion and a creation).
    pub fn changes(&self, from: &str, to: &str) -> Result<Vec<FileChange>, CheckpointError> {
        let (from, to) = (self.checkpoint(from)?, self.checkpoint(to)?);
        let (deltas, _) = compare::deltas(&self.objects, from, to)?;
        compare::file_changes(&self.objects, &deltas)
    }

    /// The changes without their diffs.
    pub fn summary(&self, from: &str, to: &str) -> Result<Vec<ChangeSummary>, CheckpointError> {
        Ok(self
            .changes(from, to)?
            .iter()
            .map(ChangeSummary::from)
            .collect())
    }

    /// One path's change between two checkpoints, `None` when it is the same on both sides.
    /// Where the path changed kind (a file became a folder), the change shown is the new
    /// side's creation.
    pub fn change_of(
        &self,
        from: &str,
        to: &str,
        path: &str,
    ) -> Result<Option<FileChange>, CheckpointError> {
        let (from, to) = (self.checkpoint(from)?, self.checkpoint(to)?);
        let path = path.trim_start_matches("./").trim_end_matches('/');
        if path.is_empty() {
            return Ok(None);
        }
        let old = entry_at(&self.objects, from, path)?;
        let new = entry_at(&self.objects, to, path)?;
        let (old, new) = match (old, new) {
            (None, None) => return Ok(None),
            (Some(o), Some(n)) if o.kind == n.kind => {
                let differs = match o.kind {
                    Kind::Dir => o.mode != n.mode,
                    Kind::File => o.hash != n.hash || o.mode != n.mode,
                    Kind::Symlink => o.hash != n.hash,
                };
                if !differs {
                    return Ok(None);
                }
                (Some(o), Some(n))
            }
            (Some(_), Some(n)) => (None, Some(n)),
            other => other,
        };
        let delta = Delta {
            path: path.to_owned(),
            old,
            new,
        };
        compare::file_change(&self.objects, &delta).map(Some)
    }

    /// Deletes the objects no checkpoint in `keep`, nor a pending restore, nor a snapshot of
    /// the last [`PRUNE_GRACE`](recent::PRUNE_GRACE) reaches; returns the bytes freed. Skips
    /// (frees nothing) while another process snapshots or restores.
    pub fn prune(&self, keep: &[String]) -> Result<u64, CheckpointError> {
        let mut state = self.lock();
        let Some(_exclusive) =
            recent::exclusive(&self.dir).map_err(|e| io_error("lock", &self.dir, e))?
        else {
            // Another process is recording or restoring: prune another time.
            return Ok(0);
        };
        let mut reached: HashSet<ObjectId> = HashSet::new();
        let mut trees =
            recent::within_grace(&self.dir).map_err(|e| io_error("read", &self.dir, e))?;
        for id in keep {
            trees.push(
                ObjectId::parse(id).ok_or_else(|| CheckpointError::BadId { id: id.clone() })?,
            );
        }
        // A rewind not finished yet must stay recoverable.
        trees.extend(self.pending_target()?);
        while let Some(id) = trees.pop() {
            if !reached.insert(id) {
                continue;
            }
            let entries = match read_tree(&self.objects, id) {
                Ok(entries) => entries,
                // A lost or damaged tree keeps nothing beneath it; the rest goes on.
                Err(
                    e @ (CheckpointError::MissingObject { .. }
                    | CheckpointError::Damaged { .. }
                    | CheckpointError::BadTree { .. }),
                ) => {
                    tracing::warn!(error = %e, "checkpoint tree not followed while pruning");
                    continue;
                }
                Err(e) => return Err(e),
            };
            for entry in entries {
                if entry.kind == Kind::Dir {
                    trees.push(entry.hash);
                } else {
                    reached.insert(entry.hash);
                }
            }
        }
        let mut freed = 0;
        for stored in self.objects.list(true)? {
            if reached.contains(&stored.id) {
                continue;
            }
            match std::fs::remove_file(&stored.path) {
                Ok(()) => freed += stored.bytes,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_error("delete", &stored.path, e)),
            }
        }
        let state = &mut *state;
        state.known.retain(|id| reached.contains(id));
        let before = state.cache.entries.len();
        state.cache.entries.retain(|_, c| reached.contains(&c.hash));
        if state.cache.entries.len() != before {
            self.save_cache(&state.cache);
        }
        Ok(freed)
    }

    /// Bytes the store takes on disk: its objects, index and journal.
    pub fn disk_usage(&self) -> Result<u64, CheckpointError> {
        let mut total: u64 = self.objects.list(false)?.iter().map(|s| s.bytes).sum();
        for name in [INDEX_FILE, JOURNAL_FILE] {
            if let Ok(meta) = std::fs::metadata(self.dir.join(name)) {
                total += meta.len();
            }
        }
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_store_can_be_shared_between_threads() {
        // Callers keep it in an Arc and use it from spawn_blocking.
        fn shared<T: Send + Sync>() {}
        shared::<super::CheckpointStore>();
    }
}
