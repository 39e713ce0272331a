//! What a walled program leaves to clean up: its private TMPDIR (swept when a killed run left
//! one) and its process group (asked to stop, then killed, also when dropped).

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::Wall;

/// Grace the helper gets to end what the command started before the group is killed.
const STOP_GRACE: Duration = Duration::from_millis(300);

/// Stops the command's whole process group when dropped or asked to (the executor may drop
/// the call on its own timeout or on cancel): SIGTERM first, so the sandbox helper can end
/// what the command detached, then SIGKILL.
pub(crate) struct ProcessGroup(pub(crate) Option<u32>);

impl ProcessGroup {
    fn pid(&self) -> Option<rustix::process::Pid> {
        self.0
            .and_then(|p| i32::try_from(p).ok())
            .and_then(rustix::process::Pid::from_raw)
    }

    fn signal(&self, signal: rustix::process::Signal) {
        if let Some(pid) = self.pid() {
            let _ = rustix::process::kill_process_group(pid, signal);
        }
    }

    /// Kills the group once; later calls do nothing, so a recycled id is never signalled.
    pub(crate) fn kill_now(&mut self) {
        self.signal(rustix::process::Signal::KILL);
        self.0 = None;
    }

    /// Stops the group once: asked, then killed.
    pub(crate) async fn stop(&mut self) {
        if self.0.is_none() {
            return;
        }
        self.signal(rustix::process::Signal::TERM);
        tokio::time::sleep(STOP_GRACE).await;
        self.signal(rustix::process::Signal::KILL);
        self.0 = None;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.0.is_none() {
            return;
        }
        self.signal(rustix::process::Signal::TERM);
        let group = ProcessGroup(self.0.take());
        std::thread::spawn(move || {
            std::thread::sleep(STOP_GRACE);
            group.signal(rustix::process::Signal::KILL);
        });
    }
}

/// The command's TMPDIR: the session's when configured, else a fresh one removed afterwards.
pub(crate) struct TmpDir {
    pub(crate) path: PathBuf,
    remove: bool,
}

impl TmpDir {
    pub(crate) fn for_command(wall: &Wall<'_>) -> std::io::Result<Self> {
        if let Some(path) = &wall.sandbox.tmp_dir {
            std::fs::create_dir_all(path)?;
            return Ok(Self {
                path: path.canonicalize()?,
                remove: false,
            });
        }
        Self::fresh("")
    }

    /// A new private folder `<temp>/paddock-bash-<pid>-<n>-<nanos><tag>`, removed when
    /// dropped (or, after a kill, at the next start).
    pub(crate) fn fresh(tag: &str) -> std::io::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| sweep_leftovers(&std::env::temp_dir()));
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "{TMP_PREFIX}{}-{}-{nanos}{tag}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(name);
        // Private: other local users may not read what the command leaves there.
        std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        Ok(Self {
            path: path.canonicalize()?,
            remove: true,
        })
    }
}

/// A command's TMPDIR is `<temp>/paddock-bash-<pid>-<n>-<nanos>`.
const TMP_PREFIX: &str = "paddock-bash-";

/// Removes the TMPDIRs that processes no longer running left behind (a killed run), once
/// per process: only ours, only real folders, never one of a live process.
fn sweep_leftovers(temp: &Path) {
    use std::os::unix::fs::MetadataExt;
    let me = rustix::process::getuid().as_raw();
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(TMP_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<i32>().ok())
        else {
            continue;
        };
        let ours =
            std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.is_dir() && m.uid() == me);
        let alive = rustix::process::Pid::from_raw(pid)
            .is_some_and(|p| rustix::process::test_kill_process(p).is_ok());
        if ours && !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A killed run's TMPDIR goes at the next start; a live process's stays, and so does
    /// anything not named like ours.
    #[test]
    fn leftovers_of_dead_processes_are_swept() {
        let temp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let gone = temp.path().join(format!("{TMP_PREFIX}{dead}-0-1"));
        let live = temp
            .path()
            .join(format!("{TMP_PREFIX}{}-0-1", std::process::id()));
        let other = temp.path().join("paddock-bash-notapid");
        for d in [&gone, &live, &other] {
            std::fs::create_dir_all(d.join("x")).unwrap();
        }
        sweep_leftovers(temp.path());
        assert!(!gone.exists());
        assert!(live.exists() && other.exists());
    }
}
