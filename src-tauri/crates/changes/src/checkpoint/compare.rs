//! What differs between two trees: walked side by side, descending only into folders whose
//! hashes differ, so comparing two snapshots of a big workspace reads only the folders on
//! the paths that changed. The differences become [`FileChange`]s for people, and the list
//! of operations a restore applies.

use paddock_protocol::{ChangeKind, DiffBody, FileChange, ModeChange};

use super::CheckpointError;
use super::objects::{ObjectId, Objects};
use super::rules::join;
use super::tree::{self, Entry, Kind};

/// One path that differs. Either side may be missing; when both are there they have the
/// same kind (a change of kind is two deltas: the old side removed, the new one created).
#[derive(Debug, Clone)]
pub(crate) struct Delta {
    pub path: String,
    pub old: Option<Entry>,
    pub new: Option<Entry>,
}

/// A folder on both sides that the walk went through (something beneath it differs).
#[derive(Debug, Clone)]
pub(crate) struct Through {
    pub path: String,
    pub old_mode: u32,
    pub new_mode: u32,
}

/// The differences between the trees `old` and `new`, in tree order (a folder before its
/// contents; a removal before a creation at the same path).
pub(crate) fn deltas(
    objects: &Objects,
    old: ObjectId,
    new: ObjectId,
) -> Result<(Vec<Delta>, Vec<Through>), CheckpointError> {
    let mut out = (Vec::new(), Vec::new());
    if old != new {
        walk(objects, Some(old), Some(new), "", &mut out)?;
    }
    Ok(out)
}

/// The entries of a tree object.
pub(crate) fn read_tree(objects: &Objects, id: ObjectId) -> Result<Vec<Entry>, CheckpointError> {
    let bytes = objects.read(id)?;
    tree::decode(&bytes).map_err(|message| CheckpointError::BadTree {
        id: id.to_hex(),
        message,
    })
}

fn walk(
    objects: &Objects,
    old: Option<ObjectId>,
    new: Option<ObjectId>,
    prefix: &str,
    out: &mut (Vec<Delta>, Vec<Through>),
) -> Result<(), CheckpointError> {
    let old = match old {
        Some(id) => read_tree(objects, id)?,
        None => Vec::new(),
    };
    let new = match new {
        Some(id) => read_tree(objects, id)?,
        None => Vec::new(),
    };
    let (mut a, mut b) = (old.into_iter().peekable(), new.into_iter().peekable());
    loop {
        let (o, n) = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => (a.next(), None),
            (None, Some(_)) => (None, b.next()),
            (Some(x), Some(y)) => match x.name.cmp(&y.name) {
                std::cmp::Ordering::Less => (a.next(), None),
                std::cmp::Ordering::Greater => (None, b.next()),
                std::cmp::Ordering::Equal => (a.next(), b.next()),
            },
        };
        let name = match (&o, &n) {
            (Some(e), _) | (None, Some(e)) => e.name.clone(),
            (None, None) => break,
        };
        let path = join(prefix, &name);
        match (o, n) {
            (Some(o), Some(n)) if o.kind == n.kind => {
                if o.kind == Kind::Dir {
                    if o.mode != n.mode {
                        out.0.push(delta(&path, Some(&o), Some(&n)));
                    }
                    if o.hash != n.hash {
                        out.1.push(Through {
                            path: path.clone(),
                            old_mode: o.mode,
                            new_mode: n.mode,
                        });
                        walk(objects, Some(o.hash), Some(n.hash), &path, out)?;
                    }
                } else if o.hash != n.hash || (o.kind == Kind::File && o.mode != n.mode) {
                    out.0.push(delta(&path, Some(&o), Some(&n)));
                }
            }
            (o, n) => {
                if let Some(o) = o {
                    one_side(objects, &path, o, true, out)?;
                }
                if let Some(n) = n {
                    one_side(objects, &path, n, false, out)?;
                }
            }
        }
    }
    Ok(())
}

/// An entry on one side only (with everything beneath it, for a folder).
fn one_side(
    objects: &Objects,
    path: &str,
    entry: Entry,
    old: bool,
    out: &mut (Vec<Delta>, Vec<Through>),
) -> Result<(), CheckpointError> {
    let sub = (entry.kind == Kind::Dir).then_some(entry.hash);
    if old {
        out.0.push(delta(path, Some(&entry), None));
        if sub.is_some() {
            walk(objects, sub, None, path, out)?;
        }
    } else {
        out.0.push(delta(path, None, Some(&entry)));
        if sub.is_some() {
            walk(objects, None, sub, path, out)?;
        }
    }
    Ok(())
}

fn delta(path: &str, old: Option<&Entry>, new: Option<&Entry>) -> Delta {
    Delta {
        path: path.to_owned(),
        old: old.cloned(),
        new: new.cloned(),
    }
}

/// The entry at `path` (`/`-separated, relative) in the tree `root`.
pub(crate) fn entry_at(
    objects: &Objects,
    root: ObjectId,
    path: &str,
) -> Result<Option<Entry>, CheckpointError> {
    let mut tree = root;
    let mut parts = path
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .peekable();
    while let Some(part) = parts.next() {
        let Some(entry) = read_tree(objects, tree)?
            .into_iter()
            .find(|e| e.name == part)
        else {
            return Ok(None);
        };
        if parts.peek().is_none() {
            return Ok(Some(entry));
        }
        if entry.kind != Kind::Dir {
            return Ok(None);
        }
        tree = entry.hash;
    }
    Ok(None)
}

/// The change a delta shows, with the full diff of a file.
pub(crate) fn file_change(objects: &Objects, d: &Delta) -> Result<FileChange, CheckpointError> {
    let kind = match (&d.old, &d.new) {
        (None, _) => ChangeKind::Created,
        (_, None) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    let (old, new) = (d.old.as_ref(), d.new.as_ref());
    let Some(sample) = new.or(old) else {
        return Ok(bare_change(&d.path, kind, None, DiffBody::Folder));
    };
    let mode = match (old, new) {
        (Some(o), Some(n)) if o.mode == n.mode => None,
        _ => Some(ModeChange {
            old: old.map(|e| e.mode),
            new: new.map(|e| e.mode),
        }),
    };
    match sample.kind {
        Kind::Dir => Ok(bare_change(&d.path, kind, mode, DiffBody::Folder)),
        Kind::Symlink => {
            let text = |e: Option<&Entry>| -> Result<Option<String>, CheckpointError> {
                e.map(|e| objects.read(e.hash))
                    .transpose()
                    .map(|b| b.map(|b| String::from_utf8_lossy(&b).into_owned()))
            };
            let diff = DiffBody::Link {
                old: text(old)?,
                new: text(new)?,
            };
            Ok(bare_change(&d.path, kind, None, diff))
        }
        Kind::File => {
            let same = matches!((old, new), (Some(o), Some(n)) if o.hash == n.hash);
            let mut change = if same {
                // Only the mode changed: no content to read.
                crate::file_change(&d.path, Some(b""), Some(b""))
            } else {
                let old_bytes = old.map(|e| objects.read(e.hash)).transpose()?;
                let new_bytes = new.map(|e| objects.read(e.hash)).transpose()?;
                crate::file_change(&d.path, old_bytes.as_deref(), new_bytes.as_deref())
            };
            change.mode = mode;
            Ok(change)
        }
    }
}

fn bare_change(
    path: &str,
    kind: ChangeKind,
    mode: Option<ModeChange>,
    diff: DiffBody,
) -> FileChange {
    FileChange {
        path: path.to_owned(),
        kind,
        added: 0,
        removed: 0,
        mode,
        diff,
    }
}

/// The changes of `deltas`, sorted by path (a removal before a creation at one path).
pub(crate) fn file_changes(
    objects: &Objects,
    deltas: &[Delta],
) -> Result<Vec<FileChange>, CheckpointError> {
    let mut changes = deltas
        .iter()
        .map(|d| file_change(objects, d))
        .collect::<Result<Vec<_>, _>>()?;
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(changes)
}
