//! One pass over the workspace: every folder is opened beneath the root without following a
//! link (so a folder swapped for a symlink mid-scan cannot lead the scan outside), entries
//! are stat'ed without following, file contents are read through the guard, and each
//! folder becomes a tree object. Files whose stamp matches the stat cache are not read.

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
use super::objects::{ObjectId, Objects, io_error};
use super::rules::{IGNORE_FILES, Rules, join};
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
    /// The stat cache for the next scan.
    pub cache: HashMap<String, Cached>,
}

/// A scan in progress.
pub(crate) struct Scan<'a> {
    root: &'a Root,
    objects: &'a Objects,
    /// Objects known to be in the store (written or seen this process).
    known: &'a mut HashSet<ObjectId>,
    old_cache: &'a HashMap<String, Cached>,
    /// Stamps with an mtime or ctime at or after this (ns) are not cached.
    racy_from: i64,
    rules: Rules,
    entries: usize,
    out: Scanned,
}

impl<'a> Scan<'a> {
    pub fn new(
        root: &'a Root,
        objects: &'a Objects,
        known: &'a mut HashSet<ObjectId>,
        old_cache: &'a HashMap<String, Cached>,
    ) -> Self {
        let start = SystemTime::now()
            .checked_sub(RACY_WINDOW)
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        Self {
            root,
            objects,
            known,
            old_cache,
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
                cache: HashMap::new(),
            },
        }
    }

    pub fn run(mut self) -> Result<Scanned, CheckpointError> {
        let dir = self.root.open_rel_dir(Path::new(""))?;
        self.out.id = self.folder(&dir, "", 0)?;
        Ok(self.out)
    }

    /// Stores an object unless it is known to be there.
    fn store(&mut self, id: ObjectId, bytes: &[u8]) -> Result<(), CheckpointError> {
        if self.known.insert(id) {
            self.out.stored += self.objects.write(id, bytes)?;
        }
        Ok(())
    }

    /// The tree of the folder `rel`, open as `dir`.
    fn folder(&mut self, dir: &File, rel: &str, depth: usize) -> Result<ObjectId, CheckpointError> {
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
                if let Some(entry) = self.entry(dir, &abs, rel, name, depth)? {
                    entries.push(entry);
                }
            }
            Ok::<(), CheckpointError>(())
        })();
        if pushed {
            self.rules.pop();
        }
        result?;
        let bytes = tree::encode(&entries).map_err(|e| io_error("encode", &abs, e.into()))?;
        let id = ObjectId::of(&bytes);
        self.store(id, &bytes)?;
        Ok(id)
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
            FileType::Directory => self.subfolder(abs_dir, rel, name, stamp, depth)?,
            FileType::RegularFile => self.file(rel, name, stamp)?,
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
        let hash = self.folder(&dir, &rel, depth + 1)?;
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
        }
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
        self.store(hash, &content)?;
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
