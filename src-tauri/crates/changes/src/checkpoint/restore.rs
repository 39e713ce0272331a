//! Putting the workspace back to a checkpoint. The workspace as it is now is scanned (and
//! stored, so the rewind can be undone), compared with the checkpoint, and the differences
//! applied through the guarded root operations: nothing is written through a symlink, out
//! of the root, or under .git/.paddock. A journal written first (and synced) lets a restore
//! a crash interrupted be applied again: applying is idempotent, since it starts from what
//! is on disk.

use std::collections::{BTreeMap, HashSet};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use paddock_guard::{PathError, PathGuard, Root};
use paddock_protocol::ChangeSummary;
use serde::{Deserialize, Serialize};

use super::compare::{self, Delta, read_tree};
use super::objects::{ObjectId, io_error, write_private};
use super::tree::Kind;
use super::{CheckpointError, CheckpointStore, JOURNAL_FILE, State};

/// Format of journal.json.
const JOURNAL_VERSION: u32 = 1;
/// Owner bits a folder needs while its contents are changed.
const OWNER_ALL: u32 = 0o700;

/// A restore in progress.
#[derive(Serialize, Deserialize)]
struct Journal {
    v: u32,
    /// The checkpoint being restored.
    to: String,
    /// The workspace root's real path.
    root: String,
    /// The caller's own record, handed back by `recover` and `pending`.
    note: serde_json::Value,
}

impl CheckpointStore {
    /// Puts the workspace back to checkpoint `to` and returns what that changed. Refuses,
    /// before touching anything, a checkpoint that is not in the store or is missing
    /// objects. The journal (with `note`) is written first and stays until [`Self::finish`]:
    /// record the rewind on your side in between. Paths the checkpoints leave out (ignored
    /// folders, too-large and special files) are left alone; a folder that stays non-empty
    /// because of them is left too.
    pub fn restore(
        &self,
        guard: &PathGuard,
        to: &str,
        note: serde_json::Value,
    ) -> Result<Vec<ChangeSummary>, CheckpointError> {
        let target = self.checkpoint(to)?;
        let mut state = self.lock();
        let _shared = self.shared_lock()?;
        if let Some(journal) = self.read_journal()? {
            return Err(CheckpointError::Pending { root: journal.root });
        }
        self.check_complete(target)?;
        let root = open_or_create(guard)?;
        self.write_journal(&Journal {
            v: JOURNAL_VERSION,
            to: target.to_hex(),
            root: root_key(&root),
            note,
        })?;
        self.apply(&mut state, &root, target)
    }

    /// Ends a restore: removes its journal.
    pub fn finish(&self) -> Result<(), CheckpointError> {
        let _state = self.lock();
        let path = self.dir.join(JOURNAL_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_error("delete", &path, e)),
        }
    }

    /// A restore a crash interrupted: applies it again (from what is on disk now) and
    /// returns its note; `None` when none is pending. The journal stays until
    /// [`Self::finish`], as after [`Self::restore`].
    pub fn recover(&self, guard: &PathGuard) -> Result<Option<serde_json::Value>, CheckpointError> {
        let mut state = self.lock();
        let _shared = self.shared_lock()?;
        let Some(journal) = self.read_journal()? else {
            return Ok(None);
        };
        let target = ObjectId::parse(&journal.to).ok_or_else(|| CheckpointError::BadJournal {
            path: self.dir.join(JOURNAL_FILE).display().to_string(),
            message: "its checkpoint id is not one".to_owned(),
        })?;
        let root = open_or_create(guard)?;
        let key = root_key(&root);
        if key != journal.root {
            return Err(CheckpointError::OtherRoot {
                journal_root: journal.root,
                root: key,
            });
        }
        self.apply(&mut state, &root, target)?;
        Ok(Some(journal.note))
    }

    /// The note of a restore not finished yet.
    pub fn pending(&self) -> Result<Option<serde_json::Value>, CheckpointError> {
        let _state = self.lock();
        Ok(self.read_journal()?.map(|j| j.note))
    }

    /// The checkpoint a pending restore goes to.
    pub(super) fn pending_target(&self) -> Result<Option<ObjectId>, CheckpointError> {
        Ok(self.read_journal()?.and_then(|j| ObjectId::parse(&j.to)))
    }

    fn read_journal(&self) -> Result<Option<Journal>, CheckpointError> {
        let path = self.dir.join(JOURNAL_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("read", &path, e)),
        };
        let bad = |message: String| CheckpointError::BadJournal {
            path: path.display().to_string(),
            message,
        };
        let journal: Journal = serde_json::from_slice(&bytes).map_err(|e| bad(e.to_string()))?;
        if journal.v != JOURNAL_VERSION {
            return Err(bad(format!("format {} is not known", journal.v)));
        }
        Ok(Some(journal))
    }

    fn write_journal(&self, journal: &Journal) -> Result<(), CheckpointError> {
        let path = self.dir.join(JOURNAL_FILE);
        let bytes = serde_json::to_vec(journal).map_err(|e| io_error("encode", &path, e.into()))?;
        write_private(&path, &bytes, true).map_err(|e| io_error("write", &path, e))
    }

    /// Every object the checkpoint needs is in the store (trees read and checked, file
    /// and link objects present).
    fn check_complete(&self, target: ObjectId) -> Result<(), CheckpointError> {
        let mut missing: Vec<String> = Vec::new();
        let mut trees = vec![target];
        let mut seen = HashSet::new();
        while let Some(id) = trees.pop() {
            if !seen.insert(id) {
                continue;
            }
            let entries = match read_tree(&self.objects, id) {
                Ok(entries) => entries,
                Err(CheckpointError::MissingObject { id }) => {
                    missing.push(id);
                    continue;
                }
                Err(e) => return Err(e),
            };
            for entry in entries {
                if entry.kind == Kind::Dir {
                    trees.push(entry.hash);
                } else if seen.insert(entry.hash) && !self.objects.available(entry.hash) {
                    missing.push(entry.hash.to_hex());
                }
            }
        }
        match missing.first() {
            None => Ok(()),
            Some(first) => Err(CheckpointError::Incomplete {
                id: target.to_hex(),
                count: missing.len(),
                first: first.clone(),
            }),
        }
    }

    /// Makes the workspace equal to `target` (outside what checkpoints leave out).
    fn apply(
        &self,
        state: &mut State,
        root: &Root,
        target: ObjectId,
    ) -> Result<Vec<ChangeSummary>, CheckpointError> {
        let (now, _) = self.scan(state, root)?;
        let (deltas, through) = compare::deltas(&self.objects, now.id, target)?;
        // Computing the diffs reads (and checks) every blob to be written, before any write.
        let changes = compare::file_changes(&self.objects, &deltas)?;
        for d in &deltas {
            if let (Some(o), Some(n)) = (&d.old, &d.new)
                && n.kind == Kind::File
                && o.hash == n.hash
            {
                self.objects.read(n.hash)?;
            }
        }
        let mut final_modes: BTreeMap<String, u32> = BTreeMap::new();
        let mut left: HashSet<String> = HashSet::new();
        // Folders whose contents change must be writable by us while they do.
        for t in &through {
            if t.old_mode & OWNER_ALL != OWNER_ALL {
                root.set_mode(Path::new(&t.path), t.old_mode | OWNER_ALL)?;
                final_modes.insert(t.path.clone(), t.new_mode);
            }
        }
        for d in &deltas {
            if let (Some(o), None) = (&d.old, &d.new)
                && o.kind == Kind::Dir
                && o.mode & OWNER_ALL != OWNER_ALL
            {
                root.set_mode(Path::new(&d.path), o.mode | OWNER_ALL)?;
            }
        }
        // What the checkpoint does not have: files and links, then folders deepest first.
        let removed = |d: &&Delta| d.new.is_none() && d.old.is_some();
        for d in deltas.iter().filter(removed) {
            if d.old.as_ref().is_some_and(|o| o.kind != Kind::Dir) {
                root.remove(Path::new(&d.path))?;
            }
        }
        let mut dirs: Vec<&Delta> = deltas
            .iter()
            .filter(removed)
            .filter(|d| d.old.as_ref().is_some_and(|o| o.kind == Kind::Dir))
            .collect();
        dirs.sort_by_key(|d| std::cmp::Reverse(depth(&d.path)));
        for d in dirs {
            if let Err(e) = root.remove(Path::new(&d.path)) {
                left_or_fail(e, &d.path, &mut left)?;
                if let Some(o) = &d.old {
                    final_modes.insert(d.path.clone(), o.mode);
                }
            }
        }
        // Then what it has: folders (in tree order: parents first), files, links.
        for d in &deltas {
            let Some(n) = &d.new else { continue };
            if beneath_left(&d.path, &left) {
                left.insert(d.path.clone());
                continue;
            }
            let path = Path::new(&d.path);
            match n.kind {
                Kind::Dir => {
                    if d.old.is_none()
                        && let Err(e) = root.make_dir(path, n.mode | OWNER_ALL)
                    {
                        left_or_fail(e, &d.path, &mut left)?;
                        continue;
                    }
                    final_modes.insert(d.path.clone(), n.mode);
                }
                Kind::File => {
                    // Written whole even when only the mode differs: a new file never
                    // shares an inode (a hard link) with anything else.
                    let content = self.objects.read(n.hash)?;
                    if let Err(e) = root.put_file(path, &content, n.mode) {
                        left_or_fail(e, &d.path, &mut left)?;
                    }
                }
                Kind::Symlink => {
                    let link = self.objects.read(n.hash)?;
                    let target = Path::new(OsStr::from_bytes(&link));
                    if let Err(e) = root.put_symlink(path, target) {
                        left_or_fail(e, &d.path, &mut left)?;
                    }
                }
            }
        }
        // Final folder modes, deepest first (a folder closed to us is closed last).
        let mut modes: Vec<(String, u32)> = final_modes.into_iter().collect();
        modes.sort_by_key(|(path, _)| std::cmp::Reverse(depth(path)));
        for (path, mode) in modes {
            match root.set_mode(Path::new(&path), mode) {
                Ok(()) => {}
                Err(PathError::NotFound { .. }) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(changes
            .iter()
            .filter(|c| !left.contains(&c.path))
            .map(ChangeSummary::from)
            .collect())
    }
}

/// What checkpoints leave out stays where it is: a folder that is not empty because of it,
/// and a too-large or special file where the checkpoint has a folder (with everything the
/// checkpoint has beneath that folder).
fn left_or_fail(
    e: PathError,
    path: &str,
    left: &mut HashSet<String>,
) -> Result<(), CheckpointError> {
    match e {
        PathError::Io { source, .. }
            if matches!(
                source.kind(),
                io::ErrorKind::DirectoryNotEmpty | io::ErrorKind::NotADirectory
            ) =>
        {
            tracing::warn!(path, "rewind left in place what checkpoints do not keep");
            left.insert(path.to_owned());
            Ok(())
        }
        e => Err(e.into()),
    }
}

/// Whether a folder above `path` was left in place.
fn beneath_left(path: &str, left: &HashSet<String>) -> bool {
    !left.is_empty()
        && path
            .match_indices('/')
            .any(|(i, _)| left.contains(&path[..i]))
}

fn depth(path: &str) -> usize {
    path.matches('/').count()
}

fn open_or_create(guard: &PathGuard) -> Result<Root, CheckpointError> {
    match guard.open_root() {
        Err(PathError::RootMissing { .. }) => Ok(guard.create_root()?),
        other => Ok(other?),
    }
}

fn root_key(root: &Root) -> String {
    root.real_path().to_string_lossy().into_owned()
}
