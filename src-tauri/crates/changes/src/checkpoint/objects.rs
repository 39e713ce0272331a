//! The object files: each named by the sha256 of its bytes (`objects/<2 hex>/<62 hex>`),
//! written once through a temporary file and a rename, readable by the user alone. Reading
//! one checks its bytes against its name, so a damaged store is noticed, never restored.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sha2::{Digest, Sha256};

use super::CheckpointError;

/// Folders of the store: the user's alone.
pub(crate) const DIR_MODE: u32 = 0o700;
/// Files of the store.
const FILE_MODE: u32 = 0o600;
/// A temporary file this old was left by a crash (a live write takes milliseconds).
const STALE_TEMP: Duration = Duration::from_secs(3600);

/// Tells apart the temporary files of concurrent writes in one process.
static NEXT_TEMP: AtomicU64 = AtomicU64::new(0);

/// The sha256 of an object's bytes: its name in the store, and a checkpoint's id.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId([u8; 32]);

impl ObjectId {
    pub fn of(bytes: &[u8]) -> Self {
        Self(Sha256::digest(bytes).into())
    }

    /// 64 lowercase hex digits (upper case accepted); anything else is `None`, so an id
    /// can never name a path outside the store.
    pub fn parse(text: &str) -> Option<Self> {
        let text = text.as_bytes();
        if text.len() != 64 {
            return None;
        }
        let mut out = [0u8; 32];
        for (byte, pair) in out.iter_mut().zip(text.chunks_exact(2)) {
            let hi = char::from(pair[0]).to_digit(16)?;
            let lo = char::from(pair[1]).to_digit(16)?;
            *byte = u8::try_from(hi * 16 + lo).ok()?;
        }
        Some(Self(out))
    }

    pub fn to_hex(self) -> String {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for byte in self.0 {
            out.push(char::from(DIGITS[usize::from(byte >> 4)]));
            out.push(char::from(DIGITS[usize::from(byte & 0xf)]));
        }
        out
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectId({self})")
    }
}

impl Serialize for ObjectId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for ObjectId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&text).ok_or_else(|| serde::de::Error::custom("not a sha256 in hex"))
    }
}

/// An object file found by [`Objects::list`].
pub(crate) struct Stored {
    pub id: ObjectId,
    pub path: PathBuf,
    pub bytes: u64,
}

/// The `objects` folder of a store.
#[derive(Debug)]
pub(crate) struct Objects {
    dir: PathBuf,
}

impl Objects {
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    pub fn path(&self, id: ObjectId) -> PathBuf {
        let hex = id.to_hex();
        let (fan, rest) = hex.split_at(2);
        self.dir.join(fan).join(rest)
    }

    pub fn exists(&self, id: ObjectId) -> bool {
        std::fs::symlink_metadata(self.path(id)).is_ok_and(|m| m.is_file())
    }

    /// Stores `bytes` (whose id is `id`) unless already there; returns the bytes written.
    pub fn write(&self, id: ObjectId, bytes: &[u8]) -> Result<u64, CheckpointError> {
        let path = self.path(id);
        if std::fs::symlink_metadata(&path).is_ok() {
            return Ok(0);
        }
        if let Some(fan) = path.parent() {
            make_private_dir(fan).map_err(|e| io_error("create", fan, e))?;
        }
        // No fsync: an object lost to a power cut reads as damaged (its name is its hash),
        // and syncing every object would cost more than a turn's whole snapshot.
        write_private(&path, bytes, false).map_err(|e| io_error("write", &path, e))?;
        Ok(u64::try_from(bytes.len()).unwrap_or(u64::MAX))
    }

    /// The object's bytes, checked against its name.
    pub fn read(&self, id: ObjectId) -> Result<Vec<u8>, CheckpointError> {
        let path = self.path(id);
        let mut bytes = Vec::new();
        match File::open(&path).and_then(|mut f| f.read_to_end(&mut bytes)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(CheckpointError::MissingObject { id: id.to_hex() });
            }
            Err(e) => return Err(io_error("read", &path, e)),
        }
        if ObjectId::of(&bytes) != id {
            return Err(CheckpointError::Damaged {
                id: id.to_hex(),
                path: path.display().to_string(),
            });
        }
        Ok(bytes)
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

fn is_stale(meta: &std::fs::Metadata) -> bool {
    meta.modified()
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age > STALE_TEMP)
}

/// Makes `dir` (and missing parents) private; an existing one is made private too.
pub(crate) fn make_private_dir(dir: &Path) -> io::Result<()> {
    match std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(dir)
    {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// Writes `bytes` to `path` whole: a private temporary file beside it, renamed over it
/// (with `sync`, the data and the rename reach the disk before this returns).
pub(crate) fn write_private(path: &Path, bytes: &[u8], sync: bool) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let temp = dir.join(format!(
        ".{name}.{}-{}.tmp",
        std::process::id(),
        NEXT_TEMP.fetch_add(1, Ordering::Relaxed)
    ));
    let written = (|| -> io::Result<()> {
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(FILE_MODE)
            .open(&temp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        std::fs::rename(&temp, path)?;
        if sync {
            File::open(dir)?.sync_all()?;
        }
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
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
        let objects = Objects::new(tmp.path().join("objects"));
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
}
