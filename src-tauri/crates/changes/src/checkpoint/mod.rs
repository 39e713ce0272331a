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
//!
//! At real-repository scale (see `journal`, `shared`): between snapshots a journal from
//! inotify names the paths that changed, so a turn re-reads only those (the full walk
//! stays the fallback and the periodic cross-check); and a file whose content git's HEAD
//! holds is read back from the repository instead of being copied; what is copied is
//! compressed.

mod cache;
mod compare;
mod git;
mod journal;
mod object_id;
mod objects;
mod pack;
mod plan;
mod private;
mod progress;
mod recent;
mod record;
mod restore;
mod rules;
mod scan;
mod shared;
mod tree;

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use paddock_guard::{PathError, PathGuard};
use paddock_protocol::{ChangeSummary, FileChange};
use serde::{Deserialize, Serialize};

use cache::StatCache;
use compare::{Delta, entry_at, read_tree};
use objects::{ObjectId, Objects, io_error, make_private_dir};
use plan::LastScan;
use progress::Progress;
pub use progress::ScanProgress;
pub use record::{JournalStats, StoreOptions};
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
const GIT_DIR: &str = "git";
const WATCH_DIR: &str = "watch";

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
    /// Files read (hashed) by this scan; the others matched the stat cache or were taken
    /// from the last snapshot as the journal allowed.
    pub hashed: usize,
    /// Files whose new content git's HEAD holds, recorded without a copy.
    #[serde(default)]
    pub shared: usize,
    /// Whether every folder was walked (else only what the journal named was looked at).
    #[serde(default)]
    pub walked: bool,
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

/// The checkpoint store of one workspace: `objects/`, `git/` (objects shared with the
/// workspace's repository), `index.json` (the stat cache) and `journal.json` (a restore in
/// progress) under one private folder. Methods take `&self` and may be called from several
/// threads; snapshots and restores run one at a time.
pub struct CheckpointStore {
    dir: PathBuf,
    objects: Objects,
    options: StoreOptions,
    progress: Progress,
    state: Mutex<State>,
}

impl std::fmt::Debug for CheckpointStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CheckpointStore")
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

struct State {
    cache: StatCache,
    /// Objects known to be in the store: not looked for again.
    known: HashSet<ObjectId>,
    /// The stat cache changed since it was saved.
    cache_dirty: bool,
    cache_saved: Instant,
    /// The last snapshot, for the next incremental one.
    last: Option<LastScan>,
    journal: Option<record::JournalSlot>,
    stats: JournalStats,
    last_walk: Option<Instant>,
    /// Incremental snapshots since the last walk.
    since_walk: u32,
}

impl CheckpointStore {
    /// Opens the store in `dir`, creating it (mode 0700) when missing.
    pub fn open(dir: PathBuf) -> Result<Self, CheckpointError> {
        Self::open_with(dir, StoreOptions::default())
    }

    /// [`Self::open`] with options (the journal off, another cross-check period).
    pub fn open_with(dir: PathBuf, options: StoreOptions) -> Result<Self, CheckpointError> {
        let objects_dir = dir.join(OBJECTS_DIR);
        for d in [&dir, &objects_dir] {
            make_private_dir(d).map_err(|e| io_error("create", d, e))?;
        }
        let cache = StatCache::load(&dir.join(INDEX_FILE));
        let mut shared = shared::Shared::load(dir.join(GIT_DIR));
        if !options.share_with_git {
            shared.turn_off();
        }
        Ok(Self {
            objects: Objects::new(objects_dir, shared),
            options,
            progress: Progress::default(),
            state: Mutex::new(State {
                cache,
                known: HashSet::new(),
                cache_dirty: false,
                cache_saved: Instant::now(),
                last: None,
                journal: None,
                stats: JournalStats::default(),
                last_walk: None,
                since_walk: 0,
            }),
            dir,
        })
    }

    /// How far the snapshot running now has got (`running: false` when none is).
    pub fn progress(&self) -> ScanProgress {
        self.progress.get()
    }

    /// How the snapshots of this store were taken: by the journal or by walking, and how
    /// often the two disagreed when compared.
    pub fn journal_stats(&self) -> JournalStats {
        let state = self.lock();
        let mut stats = state.stats.clone();
        if let Some(slot) = &state.journal {
            stats.watched = slot.journal.as_ref().map_or(0, |j| j.watched());
            stats.off = slot.off.clone().or_else(|| slot.journal.as_ref()?.broken());
        }
        stats
    }

    /// Test hook: pauses (or resumes) the journal's reading of events.
    #[doc(hidden)]
    pub fn pause_journal(&self, paused: bool) {
        let state = self.lock();
        if let Some(journal) = state.journal.as_ref().and_then(|s| s.journal.as_ref()) {
            journal.pause(paused);
        }
    }

    /// Test hook: loses the object holding `content` (its file, or its place in a pack).
    #[doc(hidden)]
    pub fn lose_object(&self, content: &[u8]) -> Result<(), CheckpointError> {
        let id = ObjectId::of(content);
        let _ = std::fs::remove_file(self.objects.path(id));
        for pack in self.objects.pack_files() {
            if pack.ids.contains(&id) {
                self.objects.shrink_pack(&pack, &|x: &ObjectId| *x != id)?;
            }
        }
        self.lock().known.remove(&id);
        Ok(())
    }

    /// Test hook: whether the store holds a copy of `content`.
    #[doc(hidden)]
    pub fn has_object(&self, content: &[u8]) -> bool {
        self.objects.has_file(ObjectId::of(content))
    }

    /// Files the store shares with the workspace's git repository.
    pub fn shared_with_git(&self) -> usize {
        self.objects.shared().len()
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
            Err(PathError::RootMissing { .. }) => {
                state.last = None;
                return self.empty_snapshot(&mut state);
            }
            Err(e) => return Err(e.into()),
        };
        let (scanned, walked) = self.scan(&mut state, &root)?;
        self.log_recent(scanned.id);
        Ok(Snapshot {
            id: scanned.id.to_hex(),
            files: scanned.files,
            bytes: scanned.bytes,
            stored: scanned.stored,
            hashed: scanned.hashed,
            shared: scanned.shared,
            walked,
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
            shared: 0,
            walked: true,
            skipped: Vec::new(),
        })
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

    fn save_cache(&self, state: &mut State) {
        let path = self.dir.join(INDEX_FILE);
        state.cache_dirty = false;
        state.cache_saved = Instant::now();
        if let Err(e) = state.cache.save(&path) {
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
        let map_before = self.objects.shared().disk_usage();
        self.objects
            .shared()
            .retain(&reached)
            .map_err(|e| io_error("write", &self.dir, e))?;
        freed += map_before.saturating_sub(self.objects.shared().disk_usage());
        for pack in self.objects.pack_files() {
            freed += self
                .objects
                .shrink_pack(&pack, &|id: &ObjectId| reached.contains(id))?;
        }
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
        // An incremental snapshot builds on the last one: only while its objects are kept.
        if state
            .last
            .as_ref()
            .is_some_and(|l| !l.id.is_some_and(|id| reached.contains(&id)))
        {
            state.last = None;
        }
        let before = state.cache.entries.len();
        state.cache.entries.retain(|_, c| reached.contains(&c.hash));
        if state.cache.entries.len() != before {
            self.save_cache(state);
        }
        Ok(freed)
    }

    /// Bytes the store takes on disk: its objects, git map, index and journal.
    pub fn disk_usage(&self) -> Result<u64, CheckpointError> {
        let mut total: u64 = self.objects.list(false)?.iter().map(|s| s.bytes).sum();
        total += self.objects.shared().disk_usage();
        total += self
            .objects
            .pack_files()
            .iter()
            .map(|p| p.bytes)
            .sum::<u64>();
        for name in [INDEX_FILE, JOURNAL_FILE] {
            if let Ok(meta) = std::fs::metadata(self.dir.join(name)) {
                total += meta.len();
            }
        }
        Ok(total)
    }
}

impl Drop for CheckpointStore {
    fn drop(&mut self) {
        let mut state = self.lock();
        if state.cache_dirty {
            self.save_cache(&mut state);
        }
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
