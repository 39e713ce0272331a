//! What keeps `prune` from deleting what another Paddock process is recording: snapshots and
//! restores hold the store's lock shared, prune exclusive (and skips when it cannot have it),
//! and every snapshot's id is logged with its time, so one that no session names yet (its
//! run is still going) stays for [`PRUNE_GRACE`].

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::objects::ObjectId;

/// Snapshots this recent are kept by `prune` even when no session names them.
pub const PRUNE_GRACE: Duration = Duration::from_secs(24 * 60 * 60);
const LOCK_FILE: &str = "lock";
const RECENT_FILE: &str = "recent.log";

fn open_lock(dir: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.create(true).truncate(false).write(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(dir.join(LOCK_FILE))
}

/// Held while a snapshot or restore runs (released on drop).
pub(super) fn shared(dir: &Path) -> io::Result<File> {
    let file = open_lock(dir)?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockShared)?;
    Ok(file)
}

/// The lock for pruning, or `None` while another process snapshots or restores.
pub(super) fn exclusive(dir: &Path) -> io::Result<Option<File>> {
    let file = open_lock(dir)?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(file)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Notes that `id` was just recorded.
pub(super) fn log(dir: &Path, id: ObjectId) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.create(true).append(true);
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(dir.join(RECENT_FILE))?;
    writeln!(file, "{} {}", now(), id.to_hex())
}

/// The snapshots recorded within the grace period; the log is cut down to them.
pub(super) fn within_grace(dir: &Path) -> io::Result<Vec<ObjectId>> {
    let path = dir.join(RECENT_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let since = now().saturating_sub(PRUNE_GRACE.as_secs());
    let mut kept = Vec::new();
    let mut lines = String::new();
    for line in text.lines() {
        let Some((time, id)) = line.split_once(' ') else {
            continue;
        };
        let (Ok(time), Some(id)) = (time.parse::<u64>(), ObjectId::parse(id)) else {
            continue;
        };
        if time >= since {
            kept.push(id);
            lines.push_str(line);
            lines.push('\n');
        }
    }
    if lines.len() != text.len() {
        std::fs::write(&path, lines)?;
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prune_waits_for_nobody_and_skips_while_a_snapshot_runs() {
        let dir = tempfile::tempdir().unwrap();
        let held = shared(dir.path()).unwrap();
        assert!(exclusive(dir.path()).unwrap().is_none(), "busy: skip");
        drop(held);
        assert!(exclusive(dir.path()).unwrap().is_some());
    }

    #[test]
    fn recent_ids_are_kept_and_old_ones_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = ObjectId::of(b"fresh");
        let old = ObjectId::of(b"old");
        log(dir.path(), fresh).unwrap();
        let stale = now() - PRUNE_GRACE.as_secs() - 10;
        let mut text = std::fs::read_to_string(dir.path().join(RECENT_FILE)).unwrap();
        text.push_str(&format!("{stale} {}\ngarbage\n", old.to_hex()));
        std::fs::write(dir.path().join(RECENT_FILE), text).unwrap();
        let hex = |ids: Vec<ObjectId>| ids.into_iter().map(ObjectId::to_hex).collect::<Vec<_>>();
        assert_eq!(hex(within_grace(dir.path()).unwrap()), [fresh.to_hex()]);
        assert_eq!(
            hex(within_grace(dir.path()).unwrap()),
            [fresh.to_hex()],
            "the log was cut"
        );
        let _ = old;
    }
}
