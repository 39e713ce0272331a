//! A tree object: one folder's entries, sorted by name and serialized canonically (compact
//! JSON, fields in a fixed order), so the same folder always gives the same bytes and hash.

use serde::{Deserialize, Serialize};

use super::objects::ObjectId;

/// Format of tree objects; a tree in another format is not read.
const TREE_VERSION: u32 = 1;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    File,
    Dir,
    Symlink,
}

/// One name in a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry {
    pub name: String,
    pub kind: Kind,
    /// Permission bits (`& 0o777`).
    pub mode: u32,
    /// File bytes, link target bytes; 0 for a folder.
    pub size: u64,
    /// The file's content, the folder's tree or the link's target text.
    pub hash: ObjectId,
}

#[derive(Serialize)]
struct TreeOut<'a> {
    v: u32,
    entries: &'a [Entry],
}

#[derive(Deserialize)]
struct TreeIn {
    v: u32,
    entries: Vec<Entry>,
}

/// The object bytes of a folder with `entries`, which must be sorted by name.
pub(crate) fn encode(entries: &[Entry]) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&TreeOut {
        v: TREE_VERSION,
        entries,
    })
}

/// A tree object's entries; `Err` says why the bytes are not a tree this code wrote (the
/// store is private, but a name that could climb out of a folder is refused all the same).
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Entry>, String> {
    let tree: TreeIn = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if tree.v != TREE_VERSION {
        return Err(format!("tree format {} is not known", tree.v));
    }
    for pair in tree.entries.windows(2) {
        if pair[0].name >= pair[1].name {
            return Err("entries are not sorted".to_owned());
        }
    }
    if let Some(bad) = tree.entries.iter().find(|e| !plain_name(&e.name)) {
        return Err(format!("the name {:?} is not a plain file name", bad.name));
    }
    Ok(tree.entries)
}

fn plain_name(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str) -> Entry {
        Entry {
            name: name.to_owned(),
            kind: Kind::File,
            mode: 0o644,
            size: 1,
            hash: ObjectId::of(name.as_bytes()),
        }
    }

    #[test]
    fn trees_round_trip_and_encode_the_same_way_every_time() {
        let entries = vec![entry("a"), entry("b\nc"), entry("é")];
        let bytes = encode(&entries).unwrap();
        assert_eq!(bytes, encode(&entries.clone()).unwrap());
        assert_eq!(decode(&bytes).unwrap(), entries);
    }

    #[test]
    fn unsorted_or_climbing_names_are_refused() {
        for names in [["b", "a"], ["a", ".."], ["x/y", "z"]] {
            let entries: Vec<Entry> = names.iter().map(|n| entry(n)).collect();
            assert!(decode(&encode(&entries).unwrap()).is_err(), "{names:?}");
        }
    }
}
