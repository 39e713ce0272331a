//! The objects one snapshot writes, in one file (`objects/packs/<name>.pack`) instead of one
//! file each: a first snapshot writes thousands of folder trees, and creating that many
//! files costs more than everything else it does (and a 4 KB block each on disk).
//!
//! A pack is written whole (temporary file, rename) before the snapshot that wrote it
//! returns: `PDKPACK1`, then per object its id (32 bytes), length (u32 LE) and bytes (as
//! `objects` stores them: zstd or plain), then the index (count u32, then id, offset u64,
//! length u32 each), its offset (u64) and `PDKIDX01`. A pack is named by the hash of its
//! bytes, so two processes sharing a store never write the same name; packs another
//! process wrote are picked up when an object is not found. A pack whose index cannot be
//! read is left out (its objects read as missing: a restore that needs them refuses).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::object_id::ObjectId;
use super::private::{make_private_dir, write_private};

const MAGIC: &[u8; 8] = b"PDKPACK1";
const INDEX_MAGIC: &[u8; 8] = b"PDKIDX01";
const ENTRY: usize = 32 + 8 + 4;
/// A batch is written out once it holds this much.
pub(crate) const MAX_BATCH_BYTES: usize = 32 * 1024 * 1024;
/// Largest index read (a million objects).
const MAX_INDEX_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy)]
struct Slot {
    pack: u32,
    offset: u64,
    len: u32,
}

/// The packs of a store and the batch being written.
#[derive(Debug, Default)]
pub(crate) struct Packs {
    dir: PathBuf,
    index: HashMap<ObjectId, Slot>,
    /// The pack files read, by number (`None`: deleted since).
    paths: Vec<Option<PathBuf>>,
    batch: Option<Batch>,
}

#[derive(Debug, Default)]
struct Batch {
    bytes: Vec<u8>,
    entries: Vec<(ObjectId, u64, u32)>,
    ids: HashMap<ObjectId, usize>,
}

/// A pack on disk, for pruning and sizes.
pub(crate) struct PackFile {
    pub number: u32,
    pub path: PathBuf,
    pub bytes: u64,
    pub ids: Vec<ObjectId>,
}

impl Packs {
    /// The packs in `dir` (`objects/packs`).
    pub fn load(dir: PathBuf) -> Self {
        let mut packs = Self {
            dir,
            ..Self::default()
        };
        packs.refresh();
        packs
    }

    /// Reads the packs written since (by this process or another).
    pub fn refresh(&mut self) {
        let known: std::collections::HashSet<PathBuf> =
            self.paths.iter().flatten().cloned().collect();
        let mut found: Vec<PathBuf> = std::fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "pack") && !known.contains(p))
            .collect();
        found.sort();
        for path in found {
            match read_index(&path) {
                Ok(entries) => self.insert(path, entries),
                Err(e) => tracing::warn!(pack = %path.display(), error = %e, "pack not read"),
            }
        }
    }

    fn insert(&mut self, path: PathBuf, entries: Vec<(ObjectId, u64, u32)>) {
        // The same bytes written again (its name is their hash): already read.
        if self.paths.iter().flatten().any(|p| *p == path) {
            return;
        }
        let pack = u32::try_from(self.paths.len()).unwrap_or(u32::MAX);
        self.paths.push(Some(path));
        for (id, offset, len) in entries {
            self.index.insert(id, Slot { pack, offset, len });
        }
    }

    fn path(&self, number: u32) -> Option<&PathBuf> {
        self.paths.get(number as usize)?.as_ref()
    }

    pub fn contains(&self, id: ObjectId) -> bool {
        self.index.contains_key(&id) || self.batch.as_ref().is_some_and(|b| b.ids.contains_key(&id))
    }

    /// Starts collecting writes into one pack.
    pub fn begin(&mut self) {
        self.batch = Some(Batch::default());
    }

    /// Adds an object's stored bytes to the batch; `false` when no batch is open.
    pub fn add(&mut self, id: ObjectId, body: &[u8]) -> io::Result<bool> {
        let Some(batch) = &mut self.batch else {
            return Ok(false);
        };
        if batch.ids.contains_key(&id) {
            return Ok(true);
        }
        let len = u32::try_from(body.len()).map_err(|_| io::Error::other("object too large"))?;
        if batch.bytes.is_empty() {
            batch.bytes.extend_from_slice(MAGIC);
        }
        batch.bytes.extend_from_slice(&id.bytes());
        batch.bytes.extend_from_slice(&len.to_le_bytes());
        let offset = batch.bytes.len() as u64;
        batch.bytes.extend_from_slice(body);
        batch.ids.insert(id, batch.entries.len());
        batch.entries.push((id, offset, len));
        if batch.bytes.len() >= MAX_BATCH_BYTES {
            self.commit()?;
            self.begin();
        }
        Ok(true)
    }

    /// Writes the batch out as a pack (nothing when it is empty) and closes it.
    pub fn commit(&mut self) -> io::Result<()> {
        let Some(mut batch) = self.batch.take() else {
            return Ok(());
        };
        if batch.entries.is_empty() {
            return Ok(());
        }
        let index_at = batch.bytes.len() as u64;
        let count = u32::try_from(batch.entries.len()).unwrap_or(u32::MAX);
        batch.bytes.extend_from_slice(&count.to_le_bytes());
        for (id, offset, len) in &batch.entries {
            batch.bytes.extend_from_slice(&id.bytes());
            batch.bytes.extend_from_slice(&offset.to_le_bytes());
            batch.bytes.extend_from_slice(&len.to_le_bytes());
        }
        batch.bytes.extend_from_slice(&index_at.to_le_bytes());
        batch.bytes.extend_from_slice(INDEX_MAGIC);
        make_private_dir(&self.dir)?;
        let name = ObjectId::of(&batch.bytes).to_hex();
        let path = self.dir.join(format!("{}.pack", &name[..40]));
        write_private(&path, &batch.bytes, false)?;
        self.insert(path, batch.entries);
        Ok(())
    }

    /// Drops the batch (a failed snapshot): its objects were never written.
    pub fn abort(&mut self) {
        self.batch = None;
    }

    /// An object's stored bytes, `None` when it is in no pack.
    pub fn get(&self, id: ObjectId) -> io::Result<Option<Vec<u8>>> {
        if let Some(batch) = &self.batch
            && let Some(&i) = batch.ids.get(&id)
        {
            let (_, offset, len) = batch.entries[i];
            let start = usize::try_from(offset).unwrap_or(usize::MAX);
            let end = start.saturating_add(len as usize);
            return Ok(batch.bytes.get(start..end).map(<[u8]>::to_vec));
        }
        let Some(slot) = self.index.get(&id) else {
            return Ok(None);
        };
        let Some(path) = self.path(slot.pack) else {
            return Ok(None);
        };
        let file = match File::open(path) {
            Ok(file) => file,
            // Pruned by another process.
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut body = vec![0; slot.len as usize];
        file.read_exact_at(&mut body, slot.offset)?;
        Ok(Some(body))
    }

    /// Every pack, with the objects it holds.
    pub fn list(&mut self) -> Vec<PackFile> {
        self.refresh();
        let mut by_pack: HashMap<u32, Vec<ObjectId>> = HashMap::new();
        for (id, slot) in &self.index {
            by_pack.entry(slot.pack).or_default().push(*id);
        }
        self.paths
            .iter()
            .enumerate()
            .filter_map(|(number, path)| {
                let path = path.clone()?;
                let number = u32::try_from(number).ok()?;
                let bytes = std::fs::metadata(&path).ok()?.len();
                Some(PackFile {
                    bytes,
                    ids: by_pack.remove(&number).unwrap_or_default(),
                    number,
                    path,
                })
            })
            .collect()
    }

    /// Keeps only the objects of `pack` that `keep` says to: deletes it, or writes the
    /// kept ones to a new pack first. Returns the bytes freed.
    pub fn shrink(&mut self, pack: &PackFile, keep: &dyn Fn(&ObjectId) -> bool) -> io::Result<u64> {
        let kept: Vec<ObjectId> = pack.ids.iter().copied().filter(|id| keep(id)).collect();
        if kept.len() == pack.ids.len() && !pack.ids.is_empty() {
            return Ok(0);
        }
        let mut bodies = Vec::with_capacity(kept.len());
        for id in &kept {
            if let Some(body) = self.get_from(pack.number, *id)? {
                bodies.push((*id, body));
            }
        }
        // The kept objects leave the old pack's index first, so the new one takes them.
        self.index.retain(|_, slot| slot.pack != pack.number);
        let mut new_bytes = 0;
        let mut same = false;
        if !bodies.is_empty() {
            self.begin();
            for (id, body) in &bodies {
                self.add(*id, body)?;
            }
            self.commit()?;
            if let Some(Some(path)) = self.paths.last() {
                new_bytes = std::fs::metadata(path).map_or(0, |m| m.len());
                same = *path == pack.path;
            }
        }
        if !same {
            std::fs::remove_file(&pack.path).or_else(|e| match e.kind() {
                io::ErrorKind::NotFound => Ok(()),
                _ => Err(e),
            })?;
        }
        if let Some(slot) = self.paths.get_mut(pack.number as usize) {
            *slot = None;
        }
        Ok(pack.bytes.saturating_sub(new_bytes))
    }

    fn get_from(&self, number: u32, id: ObjectId) -> io::Result<Option<Vec<u8>>> {
        match self.index.get(&id) {
            Some(slot) if slot.pack == number => self.get(id),
            _ => Ok(None),
        }
    }
}

/// The index of the pack at `path`.
fn read_index(path: &Path) -> io::Result<Vec<(ObjectId, u64, u32)>> {
    let mut file = File::open(path)?;
    let size = file.metadata()?.len();
    let bad = |what: &str| io::Error::other(format!("damaged pack: {what}"));
    if size < 8 + 4 + 16 {
        return Err(bad("too short"));
    }
    let mut tail = [0u8; 16];
    file.seek(SeekFrom::Start(size - 16))?;
    file.read_exact(&mut tail)?;
    if &tail[8..] != INDEX_MAGIC {
        return Err(bad("no index"));
    }
    let index_at = u64::from_le_bytes(tail[..8].try_into().map_err(|_| bad("offset"))?);
    let index_len = (size - 16)
        .checked_sub(index_at)
        .ok_or_else(|| bad("offset"))?;
    if !(4..=MAX_INDEX_BYTES).contains(&index_len) {
        return Err(bad("index size"));
    }
    let mut index = vec![0u8; usize::try_from(index_len).map_err(|_| bad("index size"))?];
    file.seek(SeekFrom::Start(index_at))?;
    file.read_exact(&mut index)?;
    let count = u32::from_le_bytes(index[..4].try_into().map_err(|_| bad("count"))?) as usize;
    if index.len() != 4 + count * ENTRY {
        return Err(bad("index length"));
    }
    let mut out = Vec::with_capacity(count);
    for entry in index[4..].chunks_exact(ENTRY) {
        let id = ObjectId::from_bytes(entry[..32].try_into().map_err(|_| bad("id"))?);
        let offset = u64::from_le_bytes(entry[32..40].try_into().map_err(|_| bad("offset"))?);
        let len = u32::from_le_bytes(entry[40..44].try_into().map_err(|_| bad("length"))?);
        if offset
            .checked_add(u64::from(len))
            .is_none_or(|end| end > index_at)
        {
            return Err(bad("an object past the end"));
        }
        out.push((id, offset, len));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_becomes_one_pack_read_back_after_reopening() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("packs");
        let mut packs = Packs::load(dir.clone());
        packs.begin();
        let (a, b) = (ObjectId::of(b"a"), ObjectId::of(b"b"));
        assert!(packs.add(a, b"body a").unwrap());
        assert!(packs.add(b, b"body b").unwrap());
        assert_eq!(
            packs.get(a).unwrap().unwrap(),
            b"body a",
            "readable before commit"
        );
        packs.commit().unwrap();
        assert!(!packs.add(a, b"x").unwrap(), "no batch open");
        let mut again = Packs::load(dir.clone());
        assert_eq!(again.get(b).unwrap().unwrap(), b"body b");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        // A torn pack (a crash mid-write never renames one in, but a damaged disk might).
        let path = again.list()[0].path.clone();
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
        assert!(Packs::load(dir).get(a).unwrap().is_none());
    }

    #[test]
    fn shrinking_keeps_only_what_is_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let mut packs = Packs::load(tmp.path().join("packs"));
        packs.begin();
        let (a, b) = (ObjectId::of(b"a"), ObjectId::of(b"b"));
        packs.add(a, &[1; 1000]).unwrap();
        packs.add(b, &[2; 10]).unwrap();
        packs.commit().unwrap();
        let pack = packs.list().remove(0);
        assert!(packs.shrink(&pack, &|id| *id == b).unwrap() >= 1000);
        assert!(packs.get(a).unwrap().is_none());
        assert_eq!(packs.get(b).unwrap().unwrap(), [2; 10]);
        let pack = packs.list().remove(0);
        packs.shrink(&pack, &|_| false).unwrap();
        assert!(packs.list().is_empty());
    }
}
