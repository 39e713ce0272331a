//! One pass over the workspace: every folder is opened beneath the root without following a
//! link (so a folder swapped for a symlink mid-scan cannot lead the scan outside), entries
//! are stat'ed without following, file contents are read through the guard, and each
//! folder becomes a tree object. Files whose stamp matches the stat cache are not read.
//!
//! Two modes: a walk looks at everything; an incremental scan (with a [`Plan`] from the
//! journal) lists only the folders on the changed paths and takes every other entry from
//! the last snapshot without reading it. Either way each folder listed is watched first
//! (see `journal`), and a file's new content that git's HEAD holds is shared, not copied.

use std::collections::{HashMap, HashSet};
use std::ffi::CStr;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use paddock_guard::{PathError, READ_ONLY_DIRS, Root};
use rustix::fs::{AtFlags, FileType};
use rustix::io::Errno;

use super::cache::{Cached, Stamp};
use super::journal::Journal;
use super::objects::{ObjectId, Objects, io_error};
use super::plan::{DirMemo, Mark, Plan, within_cap};
use super::progress::Progress;
use super::rules::{IGNORE_FILES, Rules, join};
use super::shared::{GitRef, ShareWith};
use super::tree::{self, Entry, Kind};
use super::{
    CheckpointError, MAX_DEPTH, MAX_ENTRIES, MAX_FILE_BYTES, PERMISSION_BITS, SkipReason, Skipped,
};

/// A file modified (or its inode changed) this close to the scan's start may change again
/// within the same timestamp tick: its stamp is not trusted next time (git's "racy clean").
/// The ctime counts too, since an mtime can be set back at will.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// What a scan found.
pub(crate) struct Scanned {
    pub id: ObjectId,
    pub files: usize,
    pub bytes: u64,
    pub stored: u64,
    pub hashed: usize,
    pub skipped: Vec<Skipped>,
    /// Files shared with git instead of stored.
    pub shared: usize,
    /// Stat cache entries for the files looked at (a walk: all of them).
    pub cache: HashMap<String, Cached>,
    /// Files looked at whose stamp is too recent to cache.
    pub uncached: Vec<String>,
    /// Every folder listed, as the next incremental snapshot needs it.
    pub dirs: HashMap<String, DirMemo>,
    /// Regular files looked at, and whether each has more than one link.
    pub links: Vec<(String, bool)>,
    /// Folders that are no longer folders (their memos are stale).
    pub gone: Vec<String>,
}

/// A scan in progress.
pub(crate) struct Scan<'a> {
    root: &'a Root,
    objects: &'a Objects,
    /// Objects known to be in the store (written or seen this process).
    known: &'a mut HashSet<ObjectId>,
    old_cache: &'a HashMap<String, Cached>,
    /// The last snapshot's folders (an incremental scan's source).
    old_dirs: &'a HashMap<String, DirMemo>,
    plan: Option<&'a Plan>,
    journal: Option<&'a Journal>,
    progress: &'a Progress,
    /// What HEAD holds, once looked up (`Some(None)`: nothing to share with).
    share: Option<Option<ShareWith>>,
    /// Stamps with an mtime or ctime at or after this (ns) are not cached.
    racy_from: i64,
    rules: Rules,
    entries: usize,
    out: Scanned,
}

/// What a scan works from besides the root and the objects.
pub(crate) struct Context<'a> {
    pub old_cache: &'a HashMap<String, Cached>,
    pub old_dirs: &'a HashMap<String, DirMemo>,
    pub plan: Option<&'a Plan>,
    pub journal: Option<&'a Journal>,
    pub progress: &'a Progress,
}

impl<'a> Scan<'a> {
    pub fn new(
        root: &'a Root,
        objects: &'a Objects,
        known: &'a mut HashSet<ObjectId>,
        context: Context<'a>,
    ) -> Self {
        let start = SystemTime::now()
            .checked_sub(RACY_WINDOW)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        Self {
            root,
            objects,
            known,
            old_cache: context.old_cache,
            old_dirs: context.old_dirs,
            plan: context.plan,
            journal: context.journal,
            progress: context.progress,
            share: None,
            racy_from: start,
            rules: Rules::default(),
            entries: 0,
            out: Scanned {
                id: ObjectId::of(b""),
                files: 0,
                bytes: 0,
                stored: 0,
                hashed: 0,
                skipped: Vec::new(),
                shared: 0,
                cache: HashMap::new(),
                uncached: Vec::new(),
                dirs: HashMap::new(),
                links: Vec::new(),
                gone: Vec::new(),
            },
        }
    }

    pub fn run(mut self) -> Result<Scanned, CheckpointError> {
        let dir = self.root.open_rel_dir(Path::new(""))?;
        let full = self.plan.is_none_or(Plan::everything);
        self.out.id = self.folder(&dir, "", 0, full)?;
        Ok(self.out)
    }

    /// Stores an object unless it is known to be there.
    fn store(&mut self, id: ObjectId, bytes: &[u8]) -> Result<(), CheckpointError> {
        if self.known.insert(id) {
            self.out.stored += self.objects.write(id, bytes)?;
        }
        Ok(())
    }

    /// Stores a file's content unless the store has it, or records it as shared when git's
    /// HEAD holds it.
    fn store_file(&mut self, id: ObjectId, content: &[u8]) -> Result<(), CheckpointError> {
        if self.known.contains(&id) || self.objects.shared().contains(id) {
            self.known.insert(id);
            return Ok(());
        }
        if self.share.is_none() {
            self.share = Some(self.objects.prepare_sharing(self.root.real_path()));
        }
        if let Some(Some(share)) = &self.share
            && let Some(git) = super::git::blob_id(content)
            && share.blobs.contains(&git)
        {
            let size = u64::try_from(content.len()).unwrap_or(u64::MAX);
            self.objects.shared().add(id, GitRef { id: git, size });
            self.known.insert(id);
            self.out.shared += 1;
            return Ok(());
        }
        self.store(id, content)
    }

    fn mark(&self) -> Mark {
        Mark {
            files: self.out.files,
            bytes: self.out.bytes,
            count: self.entries,
            skipped: self.out.skipped.len(),
        }
    }

    /// The tree of the folder `rel`, open as `dir`: every entry looked at (`full`), or only
    /// those the plan names, the others taken from the last snapshot.
    fn folder(
        &mut self,
        dir: &File,
        rel: &str,
        depth: usize,
        full: bool,
    ) -> Result<ObjectId, CheckpointError> {
        if let Some(journal) = self.journal {
            journal.watch(dir, rel);
        }
        let old = if full { None } else { self.old_dirs.get(rel) };
        let before = self.mark();
        let names = self.list(dir, rel)?;
        let abs = self.root.real_path().join(rel);
        let present: Vec<&str> = IGNORE_FILES
            .iter()
            .copied()
            .filter(|f| names.iter().any(|n| n == f))
            .collect();
        let pushed = self.rules.enter(&abs, rel, &present, &mut self.out.skipped);
        let mut entries = Vec::with_capacity(names.len());
        let result = (|| {
            for name in &names {
                let path = join(rel, name);
                let reused = match old {
                    Some(old) if !self.plan.is_some_and(|p| p.touches(&path)) => {
                        self.reuse(old, &path, name)?
                    }
                    _ => None,
                };
                let entry = match reused {
                    Some(entry) => Some(entry),
                    None => self.entry(dir, &abs, rel, name, depth, full)?,
                };
                if let Some(entry) = entry {
                    entries.push(entry);
                }
            }
            Ok::<(), CheckpointError>(())
        })();
        if pushed {
            self.rules.pop();
        }
        result?;
        if let Some(old) = old {
            // Folders that are folders no more: what was remembered beneath them is stale.
            for e in old.entries.iter().filter(|e| e.kind == Kind::Dir) {
                let still = entries
                    .binary_search_by(|n| n.name.as_str().cmp(&e.name))
                    .is_ok_and(|i| entries[i].kind == Kind::Dir);
                if !still {
                    self.out.gone.push(join(rel, &e.name));
                }
            }
        }
        let bytes = tree::encode(&entries).map_err(|e| io_error("encode", &abs, e.into()))?;
        let id = ObjectId::of(&bytes);
        self.objects
            .shared()
            .flush()
            .map_err(|e| io_error("write", &abs, e))?;
        self.store(id, &bytes)?;
        let after = self.mark();
        self.out.dirs.insert(
            rel.to_owned(),
            DirMemo {
                tree: id,
                entries,
                files: after.files - before.files,
                bytes: after.bytes - before.bytes,
                count: after.count - before.count,
                skipped: self.out.skipped[before.skipped..].to_vec(),
            },
        );
        Ok(id)
    }

    /// The last snapshot's entry for `name` (not looked at again), with its totals; `None`
    /// when there is none to take (the entry is then looked at).
    fn reuse(
        &mut self,
        old: &DirMemo,
        path: &str,
        name: &str,
    ) -> Result<Option<Entry>, CheckpointError> {
        let Ok(i) = old.entries.binary_search_by(|e| e.name.as_str().cmp(name)) else {
            return Ok(None);
        };
        let entry = &old.entries[i];
        match entry.kind {
            Kind::Dir => {
                let Some(memo) = self.old_dirs.get(path).filter(|m| m.tree == entry.hash) else {
                    return Ok(None);
                };
                self.out.files += memo.files;
                self.out.bytes += memo.bytes;
                self.out.skipped.extend(memo.skipped.iter().cloned());
                self.entries += memo.count + 1;
                // Its memos stay as they were (the map is carried over).
            }
            Kind::File => {
                self.out.files += 1;
                self.out.bytes += entry.size;
                self.entries += 1;
            }
            Kind::Symlink => self.entries += 1,
        }
        if !within_cap(self.entries) {
            return Err(CheckpointError::TooManyEntries { max: MAX_ENTRIES });
        }
        Ok(Some(entry.clone()))
    }

    /// The folder's names, sorted; non-UTF-8 names and read-only folders left out.
    fn list(&mut self, dir: &File, rel: &str) -> Result<Vec<String>, CheckpointError> {
        let shown = self.root.real_path().join(rel);
        let listing =
            rustix::fs::Dir::read_from(dir).map_err(|e| io_error("list", &shown, e.into()))?;
        let mut names = Vec::new();
        for item in listing {
            let item = item.map_err(|e| io_error("list", &shown, e.into()))?;
            let raw: &CStr = item.file_name();
            let bytes = raw.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            match std::str::from_utf8(bytes) {
                Ok(name) if READ_ONLY_DIRS.contains(&name) => {}
                Ok(name) => names.push(name.to_owned()),
                Err(_) => self.out.skipped.push(Skipped {
                    path: join(rel, &String::from_utf8_lossy(bytes)),
                    reason: SkipReason::NotUtf8Name,
                }),
            }
        }
        names.sort_unstable();
        Ok(names)
    }

    /// One entry of a folder, or `None` when it is not kept.
    fn entry(
        &mut self,
        dir: &File,
        abs_dir: &Path,
        rel_dir: &str,
        name: &str,
        depth: usize,
        full: bool,
    ) -> Result<Option<Entry>, CheckpointError> {
        let rel = join(rel_dir, name);
        let st = match rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            // Gone since the listing: not part of this snapshot.
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => {
                self.skip(
                    rel,
                    SkipReason::Unreadable {
                        message: std::io::Error::from(e).to_string(),
                    },
                );
                return Ok(None);
            }
        };
        let stamp = Stamp::of(&st);
        let kept = match FileType::from_raw_mode(st.st_mode) {
            FileType::Directory => self.subfolder(abs_dir, rel, name, stamp, depth, full)?,
            FileType::RegularFile => {
                #[allow(clippy::unnecessary_cast)]
                let linked = st.st_nlink as u64 > 1;
                self.out.links.push((rel.clone(), linked));
                self.file(rel, name, stamp)?
            }
            FileType::Symlink => self.symlink(dir, name, stamp)?,
            _ => {
                self.skip(rel, SkipReason::Special);
                None
            }
        };
        if kept.is_some() {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                return Err(CheckpointError::TooManyEntries { max: MAX_ENTRIES });
            }
        }
        Ok(kept)
    }

    fn subfolder(
        &mut self,
        abs_dir: &Path,
        rel: String,
        name: &str,
        stamp: Stamp,
        depth: usize,
        full: bool,
    ) -> Result<Option<Entry>, CheckpointError> {
        if self.rules.ignores_dir(&abs_dir.join(name)) {
            return Ok(None);
        }
        if depth + 1 > MAX_DEPTH {
            self.skip(rel, SkipReason::TooDeep { max: MAX_DEPTH });
            return Ok(None);
        }
        let dir = match self.root.open_rel_dir(Path::new(&rel)) {
            Ok(dir) => dir,
            Err(e) if vanished(&e) => return Ok(None),
            Err(e) => {
                self.skip(
                    rel,
                    SkipReason::Unreadable {
                        message: e.to_string(),
                    },
                );
                return Ok(None);
            }
        };
        // Beneath a folder read whole, or one the last snapshot does not know: everything.
        let full = full
            || self.plan.is_none_or(|p| p.subtrees.contains(&rel))
            || !self.old_dirs.contains_key(&rel);
        let hash = if !full && !self.plan.is_some_and(|p| p.listed.contains(&rel)) {
            // Only the folder's own mode may have changed.
            self.remembered(&rel)?
        } else {
            self.folder(&dir, &rel, depth + 1, full)?
        };
        Ok(Some(Entry {
            name: name.to_owned(),
            kind: Kind::Dir,
            mode: stamp.mode & PERMISSION_BITS,
            size: 0,
            hash,
        }))
    }

    fn file(
        &mut self,
        rel: String,
        name: &str,
        listed: Stamp,
    ) -> Result<Option<Entry>, CheckpointError> {
        if listed.size > MAX_FILE_BYTES {
            self.skip(rel, SkipReason::TooLarge { bytes: listed.size });
            return Ok(None);
        }
        let cached = self
            .old_cache
            .get(&rel)
            .filter(|c| c.stamp == listed && self.settled(&c.stamp))
            .copied();
        // A cached hash counts only while its object is in the store (a prune, another
        // process or a lost file may have removed it).
        let cached = cached.filter(|c| self.known.contains(&c.hash) || self.objects.exists(c.hash));
        let (hash, stamp, size) = match cached {
            Some(c) => {
                self.known.insert(c.hash);
                (c.hash, c.stamp, c.stamp.size)
            }
            None => match self.read_file(&rel)? {
                Some((hash, stamp, size)) => (hash, stamp, size),
                None => return Ok(None),
            },
        };
        if self.settled(&stamp) {
            self.out.cache.insert(rel, Cached { stamp, hash });
        } else {
            self.out.uncached.push(rel);
        }
        self.progress.file(size);
        self.out.files += 1;
        self.out.bytes += size;
        Ok(Some(Entry {
            name: name.to_owned(),
            kind: Kind::File,
            mode: stamp.mode & PERMISSION_BITS,
            size,
            hash,
        }))
    }

    /// Reads and stores a file's content; `None` when it vanished, changed type or was
    /// swapped for something leading elsewhere (quietly: a later scan sees what is there).
    fn read_file(&mut self, rel: &str) -> Result<Option<(ObjectId, Stamp, u64)>, CheckpointError> {
        let mut file = match self.root.open_rel_read(Path::new(rel)) {
            Ok(file) => file,
            Err(e) if vanished(&e) => return Ok(None),
            Err(e) => {
                self.skip(
                    rel.to_owned(),
                    SkipReason::Unreadable {
                        message: e.to_string(),
                    },
                );
                return Ok(None);
            }
        };
        let unreadable = |e: std::io::Error| SkipReason::Unreadable {
            message: e.to_string(),
        };
        let stamp = match rustix::fs::fstat(&file) {
            Ok(st) => Stamp::of(&st),
            Err(e) => {
                self.skip(rel.to_owned(), unreadable(e.into()));
                return Ok(None);
            }
        };
        let mut content = Vec::new();
        // Never more than the cap, whatever the size said a moment ago.
        if let Err(e) = file
            .by_ref()
            .take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut content)
        {
            self.skip(rel.to_owned(), unreadable(e));
            return Ok(None);
        }
        let size = u64::try_from(content.len()).unwrap_or(u64::MAX);
        if size > MAX_FILE_BYTES {
            self.skip(rel.to_owned(), SkipReason::TooLarge { bytes: size });
            return Ok(None);
        }
        let hash = ObjectId::of(&content);
        self.store_file(hash, &content)?;
        self.out.hashed += 1;
        Ok(Some((hash, stamp, size)))
    }

    fn symlink(
        &mut self,
        dir: &File,
        name: &str,
        stamp: Stamp,
    ) -> Result<Option<Entry>, CheckpointError> {
        // The link's own text, read relative to the folder (never followed).
        let target = match rustix::fs::readlinkat(dir, name, Vec::new()) {
            Ok(target) => target.into_bytes(),
            Err(_) => return Ok(None),
        };
        let hash = ObjectId::of(&target);
        self.store(hash, &target)?;
        Ok(Some(Entry {
            name: name.to_owned(),
            kind: Kind::Symlink,
            mode: stamp.mode & PERMISSION_BITS,
            size: u64::try_from(target.len()).unwrap_or(u64::MAX),
            hash,
        }))
    }

    /// A folder whose contents did not change: its last tree and totals.
    fn remembered(&mut self, rel: &str) -> Result<ObjectId, CheckpointError> {
        let Some(memo) = self.old_dirs.get(rel) else {
            return Err(CheckpointError::Workspace(PathError::Raced {
                path: rel.to_owned(),
            }));
        };
        self.out.files += memo.files;
        self.out.bytes += memo.bytes;
        self.out.skipped.extend(memo.skipped.iter().cloned());
        self.entries += memo.count;
        Ok(memo.tree)
    }

    /// Changed long enough before this scan for the stamp to be trusted next time.
    fn settled(&self, stamp: &Stamp) -> bool {
        stamp.mtime_ns < self.racy_from && stamp.ctime_ns < self.racy_from
    }

    fn skip(&mut self, path: String, reason: SkipReason) {
        self.out.skipped.push(Skipped { path, reason });
    }
}

/// The path is gone, changed type, or now leads through a link: skipped quietly.
fn vanished(e: &PathError) -> bool {
    match e {
        PathError::NotFound { .. }
        | PathError::Raced { .. }
        | PathError::LinkOutside { .. }
        | PathError::IsDir { .. }
        | PathError::NotRegular { .. } => true,
        PathError::Io { source, .. } => matches!(
            source.kind(),
            std::io::ErrorKind::NotADirectory | std::io::ErrorKind::NotFound
        ),
        _ => false,
    }
}
