//! The change journal: an inotify watch on every folder a snapshot keeps, recording which
//! paths changed since the last snapshot, so the next one re-reads only those.
//!
//! The scan adds each folder's watch itself, through the descriptor it is about to list
//! (`/proc/self/fd/N`: the very folder, never a path a link could redirect), before listing
//! it: whatever changes after the listing is seen, whatever changed before is in the
//! listing. Folders the ignore files leave out (`target/`, `node_modules/`) are never
//! listed, so never watched. A new folder is marked "read whole" and watched by the scan
//! that reads it; a folder moved away loses its watches (their paths would be stale).
//!
//! A snapshot first waits until every event before it has been read: it touches a file in
//! a private folder watched by the same inotify instance, whose queue is in order, and
//! waits for that event (a "cookie", as Watchman does). The journal stops being trusted
//! (the next snapshot walks everything, and that walk re-arms it) after a queue overflow, a
//! read error, the root moving or going, a watch that could not be added, or too many
//! paths; it is off for good when the system's watch limit is reached.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
use rustix::io::Errno;

use super::objects::make_private_dir;
use super::rules::join;

/// Changed paths kept at most between two snapshots; past that, the next one walks.
const MAX_DIRTY: usize = 100_000;
/// How long a snapshot waits for its cookie before walking instead.
const SYNC_TIMEOUT: Duration = Duration::from_secs(2);
/// How often the reader thread looks whether it should stop.
const POLL_MS: i32 = 250;
const COOKIE: &str = "cookie";
/// Filesystems whose changes all pass through this kernel (so inotify sees them).
const LOCAL_FILESYSTEMS: [i64; 9] = [
    0xEF53,      // ext2/3/4
    0x5846_5342, // xfs
    0x9123_683E, // btrfs
    0x0102_1994, // tmpfs
    0x794C_7630, // overlayfs
    0xF2F5_2010, // f2fs
    0x2FC1_2FC1, // zfs
    0xCA45_1A4E, // bcachefs
    0x8584_58F6, // ramfs
];

/// The paths that changed since the last [`Journal::begin`].
#[derive(Debug, Default, Clone)]
pub(crate) struct Dirty {
    /// Paths (relative, `/`-separated) whose entry may have changed.
    pub paths: HashSet<String>,
    /// Folders to read whole (created or moved in).
    pub subtrees: HashSet<String>,
}

/// What [`Journal::begin`] found.
pub(crate) enum Taken {
    /// Everything that changed is in here.
    Complete(Dirty),
    /// The journal cannot tell: walk everything (why).
    Unknown(String),
}

pub(crate) struct Journal {
    inner: Arc<Inner>,
    reader: Option<JoinHandle<()>>,
}

struct Inner {
    fd: OwnedFd,
    cookie_dir: PathBuf,
    cookie_wd: i32,
    state: Mutex<State>,
    cookie_seen: Condvar,
    stop: AtomicBool,
}

#[derive(Default)]
struct State {
    wds: HashMap<i32, String>,
    dirs: HashMap<String, i32>,
    dirty: Dirty,
    /// Why the journal cannot be trusted since the last `begin` (`None`: it can).
    lost: Option<String>,
    /// Why it is off for good.
    broken: Option<String>,
    cookies_sent: u64,
    cookies_seen: u64,
    /// Test hook: the reader waits while set.
    paused: bool,
}

impl Journal {
    /// Starts watching for the workspace whose root folder is open as `root`; `Err` says
    /// why the journal is not used here (the snapshots then walk every time).
    pub fn start(root: &File, cookie_dir: &Path) -> Result<Self, String> {
        let fs = rustix::fs::fstatfs(root).map_err(|e| format!("statfs: {e}"))?;
        #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
        let kind = i64::from(fs.f_type as i64);
        if !LOCAL_FILESYSTEMS.contains(&kind) {
            return Err(format!(
                "the workspace is on a filesystem (type {kind:#x}) whose changes may not all be seen"
            ));
        }
        let fd = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK)
            .map_err(|e| format!("inotify: {e}"))?;
        make_private_dir(cookie_dir).map_err(|e| format!("{}: {e}", cookie_dir.display()))?;
        let cookie_wd = inotify::add_watch(&fd, cookie_dir, WatchFlags::CLOSE_WRITE)
            .map_err(|e| format!("inotify: {e}"))?;
        let inner = Arc::new(Inner {
            fd,
            cookie_dir: cookie_dir.to_path_buf(),
            cookie_wd,
            state: Mutex::new(State {
                lost: Some("nothing recorded yet".into()),
                ..State::default()
            }),
            cookie_seen: Condvar::new(),
            stop: AtomicBool::new(false),
        });
        let reading = inner.clone();
        let reader = std::thread::Builder::new()
            .name("checkpoint-journal".into())
            .spawn(move || reading.read_loop())
            .map_err(|e| format!("cannot start the journal's thread: {e}"))?;
        Ok(Self {
            inner,
            reader: Some(reader),
        })
    }

    /// Why the journal is off for good, if it is.
    pub fn broken(&self) -> Option<String> {
        self.inner.lock().broken.clone()
    }

    /// Watches the folder `rel`, open as `dir`, unless it is watched already.
    pub fn watch(&self, dir: &File, rel: &str) {
        let mut state = self.inner.lock();
        if state.broken.is_some() || state.dirs.contains_key(rel) {
            return;
        }
        let path = format!("/proc/self/fd/{}", dir.as_raw_fd());
        let flags = WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CLOSE_WRITE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR;
        match inotify::add_watch(&self.inner.fd, path.as_str(), flags) {
            Ok(wd) => {
                if let Some(old) = state.wds.insert(wd, rel.to_owned()) {
                    state.dirs.remove(&old);
                }
                state.dirs.insert(rel.to_owned(), wd);
            }
            Err(Errno::NOSPC) => {
                state.broken = Some(
                    "the system's limit on watched folders is reached \
                     (fs.inotify.max_user_watches)"
                        .into(),
                );
                state.lose("watch limit");
            }
            Err(e) => state.lose(&format!("a folder could not be watched: {e}")),
        }
    }

    /// Waits until every change made before now has been read, then hands over what
    /// changed since the last call and starts recording anew.
    pub fn begin(&self) -> Taken {
        if !self.sync() {
            let mut state = self.inner.lock();
            state.lose("the journal did not answer in time");
        }
        let mut state = self.inner.lock();
        if let Some(why) = &state.broken {
            return Taken::Unknown(why.clone());
        }
        let dirty = std::mem::take(&mut state.dirty);
        match state.lost.take() {
            Some(why) => Taken::Unknown(why),
            None => Taken::Complete(dirty),
        }
    }

    /// The snapshot after `begin` failed: the next one must walk.
    pub fn invalidate(&self, why: &str) {
        self.inner.lock().lose(why);
    }

    /// Changes recorded since the last `begin` (after waiting for them to be read).
    pub fn pending(&self) -> usize {
        self.sync();
        let state = self.inner.lock();
        if state.lost.is_some() {
            usize::MAX
        } else {
            state.dirty.paths.len() + state.dirty.subtrees.len()
        }
    }

    /// Folders watched now.
    pub fn watched(&self) -> usize {
        self.inner.lock().dirs.len()
    }

    /// Test hook: stops (or resumes) reading events, so the kernel's queue can overflow.
    #[doc(hidden)]
    pub fn pause(&self, paused: bool) {
        self.inner.lock().paused = paused;
    }

    /// Touches the cookie and waits for its event.
    fn sync(&self) -> bool {
        let target = {
            let mut state = self.inner.lock();
            if state.paused {
                return false;
            }
            state.cookies_sent += 1;
            state.cookies_sent
        };
        // Numbered: a cookie lost in an overflow must not shift the count.
        let cookie = self.inner.cookie_dir.join(format!("{COOKIE}-{target}"));
        let touched = std::os::unix::fs::OpenOptionsExt::mode(
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
            0o600,
        )
        .open(&cookie);
        if touched.is_err() {
            return false;
        }
        drop(touched);
        let state = self.inner.lock();
        let (state, timeout) = self
            .inner
            .cookie_seen
            // Lost (an overflow may have dropped the cookie itself): the caller walks anyway.
            .wait_timeout_while(state, SYNC_TIMEOUT, |s| {
                s.cookies_seen < target && s.lost.is_none()
            })
            .unwrap_or_else(PoisonError::into_inner);
        drop(state);
        let _ = std::fs::remove_file(&cookie);
        !timeout.timed_out()
    }
}

impl Drop for Journal {
    fn drop(&mut self) {
        self.inner.stop.store(true, Ordering::Relaxed);
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}

impl State {
    fn lose(&mut self, why: &str) {
        if self.lost.is_none() {
            self.lost = Some(why.to_owned());
        }
        self.dirty = Dirty::default();
    }

    fn mark(&mut self, path: String, subtree: bool) {
        if self.lost.is_some() {
            return;
        }
        if subtree {
            self.dirty.subtrees.insert(path);
        } else {
            self.dirty.paths.insert(path);
        }
        if self.dirty.paths.len() + self.dirty.subtrees.len() > MAX_DIRTY {
            self.lose("too many changes");
        }
    }

    /// Drops the watches of `rel` and everything beneath (moved away: their paths are
    /// stale; the scan watches the folder again where it is now).
    fn unwatch(&mut self, fd: &OwnedFd, rel: &str) {
        let prefix = format!("{rel}/");
        let gone: Vec<(String, i32)> = self
            .dirs
            .iter()
            .filter(|(d, _)| *d == rel || d.starts_with(&prefix))
            .map(|(d, wd)| (d.clone(), *wd))
            .collect();
        for (dir, wd) in gone {
            let _ = inotify::remove_watch(fd, wd);
            self.dirs.remove(&dir);
            self.wds.remove(&wd);
        }
    }
}

impl Inner {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn read_loop(&self) {
        let mut buf = vec![std::mem::MaybeUninit::<u8>::uninit(); 64 * 1024];
        while !self.stop.load(Ordering::Relaxed) {
            if self.lock().paused {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            let mut fds = [rustix::event::PollFd::new(
                &self.fd,
                rustix::event::PollFlags::IN,
            )];
            let timeout = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: i64::from(POLL_MS) * 1_000_000,
            };
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(0) | Err(Errno::INTR) => continue,
                Ok(_) => {}
                Err(e) => {
                    self.lock().lose(&format!("the journal stopped: {e}"));
                    return;
                }
            }
            let mut reader = inotify::Reader::new(self.fd.as_fd(), &mut buf);
            loop {
                match reader.next() {
                    Ok(event) => self.handle(&event),
                    Err(Errno::AGAIN | Errno::INTR) => break,
                    Err(e) => {
                        self.lock()
                            .lose(&format!("the journal could not be read: {e}"));
                        break;
                    }
                }
                if reader.is_buffer_empty() {
                    break;
                }
            }
        }
    }

    fn handle(&self, event: &inotify::Event<'_>) {
        let flags = event.events();
        let mut state = self.lock();
        if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
            state.lose("the kernel's event queue overflowed");
            self.cookie_seen.notify_all();
            return;
        }
        let wd = event.wd();
        let name = event.file_name().map(|n| n.to_string_lossy());
        if wd == self.cookie_wd {
            let seen = name
                .as_deref()
                .and_then(|n| n.strip_prefix(COOKIE)?.strip_prefix('-')?.parse().ok());
            if let Some(seen) = seen {
                state.cookies_seen = state.cookies_seen.max(seen);
                self.cookie_seen.notify_all();
            }
            return;
        }
        if flags.contains(ReadFlags::IGNORED) {
            if let Some(dir) = state.wds.remove(&wd) {
                if state.dirs.get(&dir) == Some(&wd) {
                    state.dirs.remove(&dir);
                }
                if dir.is_empty() {
                    state.lose("the workspace folder went away");
                }
            }
            return;
        }
        let Some(dir) = state.wds.get(&wd).cloned() else {
            return;
        };
        let Some(name) = name else {
            // The watched folder itself.
            if flags.intersects(ReadFlags::DELETE_SELF | ReadFlags::MOVE_SELF | ReadFlags::UNMOUNT)
            {
                if dir.is_empty() {
                    state.lose("the workspace folder moved or went away");
                }
            } else if flags.contains(ReadFlags::ATTRIB) && !dir.is_empty() {
                state.mark(dir, false);
            }
            return;
        };
        let path = join(&dir, &name);
        let is_dir = flags.contains(ReadFlags::ISDIR);
        if is_dir && flags.contains(ReadFlags::MOVED_FROM) {
            state.unwatch(&self.fd, &path);
        }
        let whole = is_dir && flags.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO);
        state.mark(path, whole);
    }
}
