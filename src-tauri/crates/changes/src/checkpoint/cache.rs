//! The stat cache (`index.json`): what each file looked like (size, times, inode, mode) when
//! its content was hashed, so an unchanged file is not read again, in this process or the
//! next one. It is only ever a hint: a damaged or foreign index is dropped and rebuilt.

use std::collections::HashMap;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::objects::{ObjectId, write_private};

/// Format of index.json; another format is ignored (rebuilt).
const INDEX_VERSION: u32 = 1;
/// A larger index.json is not read (200,000 entries take about 30 MB).
const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// What a file looked like; equal stamps mean the content is taken as unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Stamp {
    #[serde(rename = "s")]
    pub size: u64,
    #[serde(rename = "m")]
    pub mtime_ns: i64,
    #[serde(rename = "c")]
    pub ctime_ns: i64,
    #[serde(rename = "i")]
    pub ino: u64,
    #[serde(rename = "p")]
    pub mode: u32,
}

impl Stamp {
    /// From a stat of the file (field types differ between platforms).
    #[allow(clippy::unnecessary_cast)]
    pub fn of(st: &rustix::fs::Stat) -> Self {
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        Self {
            size: st.st_size as u64,
            mtime_ns: ns(st.st_mtime as i64, st.st_mtime_nsec as i64),
            ctime_ns: ns(st.st_ctime as i64, st.st_ctime_nsec as i64),
            ino: st.st_ino as u64,
            mode: st.st_mode as u32,
        }
    }
}

/// A file's stamp and content hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Cached {
    #[serde(flatten)]
    pub stamp: Stamp,
    #[serde(rename = "h")]
    pub hash: ObjectId,
}

#[derive(Serialize, Deserialize)]
struct IndexFile {
    v: u32,
    /// The workspace the paths are relative to.
    root: String,
    entries: HashMap<String, Cached>,
}

/// Workspace-relative path -> stamp and hash, for one workspace root.
#[derive(Debug, Default)]
pub(crate) struct StatCache {
    pub root: String,
    pub entries: HashMap<String, Cached>,
}

impl StatCache {
    /// The cache saved at `path`; empty when there is none or it cannot be used.
    pub fn load(path: &Path) -> Self {
        match Self::read(path) {
            Ok(cache) => cache,
            Err(e) if e.kind() == io::ErrorKind::NotFound => Self::default(),
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "checkpoint index ignored; it is rebuilt");
                Self::default()
            }
        }
    }

    fn read(path: &Path) -> io::Result<Self> {
        let meta = std::fs::metadata(path)?;
        if meta.len() > MAX_INDEX_BYTES {
            return Err(io::Error::other("too large"));
        }
        let index: IndexFile = serde_json::from_slice(&std::fs::read(path)?)?;
        if index.v != INDEX_VERSION {
            return Err(io::Error::other(format!("format {} is not known", index.v)));
        }
        Ok(Self {
            root: index.root,
            entries: index.entries,
        })
    }

    /// Saves the cache (temporary file + rename; no fsync: losing it costs only time).
    pub fn save(&self, path: &Path) -> io::Result<()> {
        #[derive(Serialize)]
        struct Out<'a> {
            v: u32,
            root: &'a str,
            entries: &'a HashMap<String, Cached>,
        }
        let bytes = serde_json::to_vec(&Out {
            v: INDEX_VERSION,
            root: &self.root,
            entries: &self.entries,
        })?;
        write_private(path, &bytes, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_cache_loads_and_a_damaged_one_is_empty() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("index.json");
        assert!(StatCache::load(&path).entries.is_empty());
        let mut cache = StatCache {
            root: "/w".to_owned(),
            ..StatCache::default()
        };
        let stamp = Stamp {
            size: 3,
            mtime_ns: -5,
            ctime_ns: 7,
            ino: 9,
            mode: 0o100644,
        };
        cache.entries.insert(
            "a/b".to_owned(),
            Cached {
                stamp,
                hash: ObjectId::of(b"abc"),
            },
        );
        cache.save(&path).unwrap();
        let loaded = StatCache::load(&path);
        assert_eq!(
            (loaded.root.as_str(), &loaded.entries),
            ("/w", &cache.entries)
        );
        std::fs::write(&path, b"{\"v\":1,\"root\":").unwrap();
        assert!(StatCache::load(&path).entries.is_empty());
    }
}
