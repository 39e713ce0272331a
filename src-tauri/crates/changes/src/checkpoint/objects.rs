//! The object files: each named by the sha256 of its bytes (`objects/<2 hex>/<62 hex>`),
//! compressed with zstd (kept as they are when that does not make them smaller), written
//! once through a temporary file and a rename, readable by the user alone. An object the
//! store shares with the workspace's git repository has no file: it is read from there
//! (see `shared`). Reading one checks its bytes against its name, so a damaged store or
//! repository is noticed, never restored.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use super::CheckpointError;
pub use super::object_id::ObjectId;
use super::pack::{PackFile, Packs};
pub(crate) use super::private::{make_private_dir, write_private};
use super::shared::Shared;

/// A temporary file this old was left by a crash (a live write takes milliseconds).
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// zstd's level: fast, and most of what higher levels would save on source files.
const ZSTD_LEVEL: i32 = 3;
/// The first bytes of a zstd frame.
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Largest object decompressed (a file is at most 16 MB; a tree of 200,000 entries ~40 MB).
const MAX_OBJECT_BYTES: u64 = 64 * 1024 * 1024;

/// An object file found by [`Objects::list`].
pub(crate) struct Stored {
    pub id: ObjectId,
    pub path: PathBuf,
    pub bytes: u64,
}

/// The `objects` folder of a store, and the objects it shares with git.
#[derive(Debug)]
pub(crate) struct Objects {
    dir: PathBuf,
    shared: Mutex<Shared>,
    /// Objects written by snapshots, one pack each (see `pack`).
    packs: Mutex<Packs>,
}

impl Objects {
    pub fn new(dir: PathBuf, shared: Shared) -> Self {
        Self {
            packs: Mutex::new(Packs::load(dir.join("packs"))),
            dir,
            shared: Mutex::new(shared),
        }
    }

    fn packs(&self) -> MutexGuard<'_, Packs> {
        self.packs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Objects written from now on go into one pack, written by [`Self::commit_batch`].
    pub fn begin_batch(&self) {
        self.packs().begin();
    }

    pub fn commit_batch(&self) -> Result<(), CheckpointError> {
        let dir = self.dir.join("packs");
        self.packs()
            .commit()
            .map_err(|e| io_error("write a pack in", &dir, e))
    }

    /// The batch is dropped: none of its objects is in the store.
    pub fn abort_batch(&self) {
        self.packs().abort();
    }

    pub fn pack_files(&self) -> Vec<PackFile> {
        self.packs().list()
    }

    /// Keeps only the objects of `pack` that `keep` names; returns the bytes freed.
    pub fn shrink_pack(
        &self,
        pack: &PackFile,
        keep: &dyn Fn(&ObjectId) -> bool,
    ) -> Result<u64, CheckpointError> {
        self.packs()
            .shrink(pack, keep)
            .map_err(|e| io_error("rewrite", &pack.path, e))
    }

    pub fn shared(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn path(&self, id: ObjectId) -> PathBuf {
        let hex = id.to_hex();
        let (fan, rest) = hex.split_at(2);
        self.dir.join(fan).join(rest)
    }

    /// In the store, or shared with git (whether git still has it is checked on restore).
    pub fn exists(&self, id: ObjectId) -> bool {
        self.has_file(id) || self.shared().contains(id) || self.refreshed(id)
    }

    /// Whether a pack another process wrote since holds the object.
    fn refreshed(&self, id: ObjectId) -> bool {
        let mut packs = self.packs();
        packs.refresh();
        packs.contains(id)
    }

    /// A copy of the object is in the store (its own file or a pack).
    pub fn has_file(&self, id: ObjectId) -> bool {
        self.packs().contains(id)
            || std::fs::symlink_metadata(self.path(id)).is_ok_and(|m| m.is_file())
    }

    /// Stores `bytes` (whose id is `id`) unless already there, in the open batch if there
    /// is one; returns the bytes written.
    pub fn write(&self, id: ObjectId, bytes: &[u8]) -> Result<u64, CheckpointError> {
        if self.has_file(id) {
            return Ok(0);
        }
        let packed = zstd::bulk::compress(bytes, ZSTD_LEVEL).ok();
        let body = match &packed {
            Some(p) if p.len() < bytes.len() => p.as_slice(),
            _ => bytes,
        };
        let dir = self.dir.join("packs");
        if !self
            .packs()
            .add(id, body)
            .map_err(|e| io_error("write a pack in", &dir, e))?
        {
            self.write_file(id, body)?;
        }
        Ok(u64::try_from(body.len()).unwrap_or(u64::MAX))
    }

    /// Writes an object's stored bytes to its own file, now.
    fn write_file(&self, id: ObjectId, body: &[u8]) -> Result<(), CheckpointError> {
        let path = self.path(id);
        if let Some(fan) = path.parent() {
            make_private_dir(fan).map_err(|e| io_error("create", fan, e))?;
        }
        // No fsync: an object lost to a power cut reads as damaged (its name is its hash),
        // and syncing every object would cost more than a turn's whole snapshot.
        write_private(&path, body, false).map_err(|e| io_error("write", &path, e))
    }

    /// The object's bytes, checked against its name.
    pub fn read(&self, id: ObjectId) -> Result<Vec<u8>, CheckpointError> {
        let path = self.path(id);
        let mut bytes = Vec::new();
        match File::open(&path).and_then(|mut f| f.read_to_end(&mut bytes)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let first = self.packs().get(id);
                let packed = match first {
                    Ok(None) if self.refreshed(id) => self.packs().get(id),
                    other => other,
                };
                match packed {
                    Ok(Some(body)) => bytes = body,
                    Ok(None) => return self.read_shared(id),
                    Err(e) => return Err(io_error("read", &self.dir.join("packs"), e)),
                }
            }
            Err(e) => return Err(io_error("read", &path, e)),
        }
        let damaged = || CheckpointError::Damaged {
            id: id.to_hex(),
            path: path.display().to_string(),
        };
        if bytes.starts_with(&ZSTD_MAGIC)
            && let Some(plain) = decompress(&bytes)
            && ObjectId::of(&plain) == id
        {
            return Ok(plain);
        }
        // Stored as it was (compression did not help, or an older store).
        if ObjectId::of(&bytes) != id {
            return Err(damaged());
        }
        Ok(bytes)
    }

    /// An object shared with git, read from the repository and checked against its name.
    fn read_shared(&self, id: ObjectId) -> Result<Vec<u8>, CheckpointError> {
        let missing = || CheckpointError::MissingObject { id: id.to_hex() };
        let (found, repo) = {
            let mut shared = self.shared();
            let Some(found) = shared.get(id) else {
                return Err(missing());
            };
            (found, shared.repo())
        };
        let Some(repo) = repo else {
            return Err(missing());
        };
        let bytes = repo.read_blob(found.id, found.size).map_err(|e| {
            tracing::warn!(object = %found.id, error = %e, "shared object not read from git");
            missing()
        })?;
        if ObjectId::of(&bytes) != id {
            return Err(CheckpointError::Damaged {
                id: id.to_hex(),
                path: format!("{} (git object {})", repo.git_dir().display(), found.id),
            });
        }
        Ok(bytes)
    }

    /// What the workspace at `root` (real path) can share with its git repository now.
    pub fn prepare_sharing(&self, root: &Path) -> Option<super::shared::ShareWith> {
        let mut shared = self.shared();
        let mut secure = |id: ObjectId, bytes: &[u8]| {
            self.write(id, bytes).map(|_| ()).map_err(|e| e.to_string())
        };
        shared.prepare(root, &mut secure)
    }

    /// Whether the object can be read: its file is there, or git has its blob.
    pub fn available(&self, id: ObjectId) -> bool {
        if self.has_file(id) || self.refreshed(id) {
            return true;
        }
        let mut shared = self.shared();
        let Some(found) = shared.get(id) else {
            return false;
        };
        shared.repo().is_some_and(|repo| repo.has(found.id))
    }

    /// Every object in the store, and (when `clean`) removes temporary files a crash left.
    pub fn list(&self, clean: bool) -> Result<Vec<Stored>, CheckpointError> {
        let mut found = Vec::new();
        let fans = match std::fs::read_dir(&self.dir) {
            Ok(fans) => fans,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(found),
            Err(e) => return Err(io_error("list", &self.dir, e)),
        };
        for fan in fans {
            let fan = fan.map_err(|e| io_error("list", &self.dir, e))?;
            let fan_name = fan.file_name();
            let Some(fan_name) = fan_name.to_str().filter(|n| n.len() == 2) else {
                continue;
            };
            let fan_path = fan.path();
            let entries =
                std::fs::read_dir(&fan_path).map_err(|e| io_error("list", &fan_path, e))?;
            for entry in entries {
                let entry = entry.map_err(|e| io_error("list", &fan_path, e))?;
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let Ok(meta) = entry.metadata() else { continue };
                if name.starts_with('.') {
                    if clean && is_stale(&meta) {
                        let _ = std::fs::remove_file(entry.path());
                    }
                    continue;
                }
                if let Some(id) = ObjectId::parse(&format!("{fan_name}{name}")) {
                    found.push(Stored {
                        id,
                        path: entry.path(),
                        bytes: meta.len(),
                    });
                }
            }
        }
        Ok(found)
    }
}

/// A zstd frame's content, when it says its size and that size is within bounds.
fn decompress(bytes: &[u8]) -> Option<Vec<u8>> {
    let size = zstd::zstd_safe::get_frame_content_size(bytes).ok()??;
    if size > MAX_OBJECT_BYTES {
        return None;
    }
    zstd::bulk::decompress(bytes, usize::try_from(size).ok()?).ok()
}

fn is_stale(meta: &std::fs::Metadata) -> bool {
    meta.modified()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age > STALE_TEMP)
}

pub(crate) fn io_error(action: &'static str, path: &Path, source: io::Error) -> CheckpointError {
    CheckpointError::Io {
        action,
        path: path.display().to_string(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_refuse_anything_but_hex() {
        let id = ObjectId::of(b"hello");
        assert_eq!(
            id.to_hex(),
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"
        );
        assert_eq!(ObjectId::parse(&id.to_hex()), Some(id));
        assert_eq!(ObjectId::parse(&id.to_hex().to_uppercase()), Some(id));
        for bad in ["", "../../etc/passwd", &"g".repeat(64), &"a".repeat(63)] {
            assert_eq!(ObjectId::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn objects_are_written_once_and_checked_when_read() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = Objects::new(tmp.path().join("objects"), Shared::default());
        let id = ObjectId::of(b"data");
        assert_eq!(objects.write(id, b"data").unwrap(), 4);
        assert_eq!(objects.write(id, b"data").unwrap(), 0);
        assert_eq!(objects.read(id).unwrap(), b"data");
        std::fs::write(objects.path(id), b"evil").unwrap();
        assert!(matches!(
            objects.read(id),
            Err(CheckpointError::Damaged { .. })
        ));
        let other = ObjectId::of(b"other");
        assert!(matches!(
            objects.read(other),
            Err(CheckpointError::MissingObject { .. })
        ));
        assert_eq!(objects.list(true).unwrap().len(), 1);
    }

    #[test]
    fn objects_are_compressed_when_that_helps_and_read_back_either_way() {
        let tmp = tempfile::tempdir().unwrap();
        let objects = Objects::new(tmp.path().join("objects"), Shared::default());
        let text = "fn main() { println!(\"hello\"); }\n".repeat(200);
        let id = ObjectId::of(text.as_bytes());
        let written = objects.write(id, text.as_bytes()).unwrap();
        assert!(
            written * 5 < text.len() as u64,
            "{written} of {}",
            text.len()
        );
        assert_eq!(objects.read(id).unwrap(), text.as_bytes());
        // A file that looks like zstd but is stored as it is (a .zst in the workspace).
        let raw = [&ZSTD_MAGIC[..], b"not really"].concat();
        let raw_id = ObjectId::of(&raw);
        std::fs::create_dir_all(objects.path(raw_id).parent().unwrap()).unwrap();
        std::fs::write(objects.path(raw_id), &raw).unwrap();
        assert_eq!(objects.read(raw_id).unwrap(), raw);
    }
}
