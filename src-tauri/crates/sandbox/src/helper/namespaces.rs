//! The wall without bubblewrap: the helper makes user, mount, PID (and, unless granted,
//! network) namespaces itself, empties the folders that hold host sockets, hides credentials,
//! keeps `.git`/`.paddock` read-only, then forks the command as the new PID namespace's init
//! (everything it starts dies with it) with a fresh /proc, its own session, Landlock and the
//! seccomp filter.

use std::ffi::{CString, OsString};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::sys;
use crate::policy::Policy;
use crate::seccomp::{self, Filter};

/// Runs `command` behind the wall, `marker` added to its environment. The helper has armed
/// its own death signal (SIGKILL) already.
pub fn run(
    policy: &Policy,
    command: &[OsString],
    marker: &[(&'static str, String)],
) -> Result<i32, String> {
    enter_namespaces(policy)?;
    build_mounts(policy)?;
    // The writing end is held open only by this helper (the child closes its copy): at the
    // helper's end the child's reading end hangs up. Across the PID namespace the child's
    // getppid() says nothing.
    let (parent_alive, alive) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
        .map_err(|e| format!("pipe: {e}"))?;
    let child = sys::fork().map_err(|e| format!("fork: {e}"))?;
    if child == 0 {
        drop(alive);
        be_init(policy, command, marker, &parent_alive);
    }
    drop(parent_alive);
    let mut code = 1;
    loop {
        match sys::wait_any(true) {
            sys::Waited::Child(pid, status) if pid == child => code = sys::exit_code(status),
            sys::Waited::Child(..) | sys::Waited::Interrupted | sys::Waited::Running => {}
            sys::Waited::None => break,
        }
    }
    drop(alive);
    Ok(code)
}

/// New user, mount, PID (and, without the network, network) namespaces, this user mapped
/// in, the mounts made private.
fn enter_namespaces(policy: &Policy) -> Result<(), String> {
    let maps = crate::linux::IdMaps::current();
    let mut flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWPID;
    if !policy.network {
        flags |= libc::CLONE_NEWNET;
    }
    mount::unshare(flags)?;
    crate::linux::write_id_maps(&maps).map_err(|e| format!("uid/gid maps: {e}"))?;
    if !policy.network {
        crate::linux::bring_loopback_up();
    }
    mount::private_root()
}

/// The wall's mounts, in the policy's order: emptied and private folders, what comes back
/// in them, read-only paths, overlays, the proxy's socket, the masks last.
fn build_mounts(policy: &Policy) -> Result<(), String> {
    // What comes back inside a folder about to be emptied is held open first, then bound
    // into the empty one (outer paths first).
    let bound: Vec<(PathBuf, bool, OwnedFd)> = policy
        .bound_back()
        .into_iter()
        .filter_map(|(p, w)| mount::open_path(&p).ok().map(|fd| (p, w, fd)))
        .collect();
    let overlays: Vec<(PathBuf, OwnedFd)> = policy
        .overlays
        .iter()
        .filter_map(|o| {
            mount::open_path(&o.source)
                .ok()
                .map(|fd| (o.target.clone(), fd))
        })
        .collect();
    let proxy = match &policy.proxy {
        Some(socket) => Some(mount::open_path(socket)?),
        None => None,
    };
    for dir in policy.emptied.iter().chain(&policy.private) {
        mount::tmpfs(dir, false)?;
    }
    for (path, writable, fd) in &bound {
        mount::bind_back(fd, path, !writable)?;
    }
    // A path gone from view (inside an emptied folder, e.g. a project under /tmp) needs no
    // pinning: the command cannot reach it at all.
    let visible = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    for path in policy.read_only.iter().filter(|p| visible(p)) {
        mount::read_only(path)?;
    }
    for (target, fd) in &overlays {
        mount::bind_back(fd, target, true)?;
    }
    for dir in &policy.private {
        mount::remount_read_only(dir)?;
    }
    if let Some(fd) = &proxy {
        mount::bind_back(fd, Path::new(crate::PROXY_SOCKET), true)?;
    }
    // Masks last, so nothing bound after them uncovers one.
    for path in policy.hidden.iter().filter(|p| visible(p)) {
        if path.is_dir() {
            mount::tmpfs(path, true)?;
        } else {
            mount::bind_null(path)?;
        }
    }
    Ok(())
}

/// The forked child: the PID namespace's init, which becomes the command. Never returns.
fn be_init(
    policy: &Policy,
    command: &[OsString],
    marker: &[(&'static str, String)],
    parent_alive: &OwnedFd,
) -> ! {
    // Dies with the helper: armed, then the helper checked to be there still.
    sys::die_with_parent(libc::SIGKILL);
    if hung_up(parent_alive) {
        std::process::exit(super::EXIT_WALL_FAILED);
    }
    // A /proc that shows only it, its own session.
    let failed = mount::fresh_proc()
        .and_then(|()| {
            sys::setsid();
            std::env::set_current_dir(&policy.workdir)
                .map_err(|e| format!("cannot enter {}: {e}", policy.workdir.display()))
        })
        .and_then(|()| sys::drop_capabilities().map_err(|e| format!("dropping capabilities: {e}")))
        .and_then(|()| {
            sys::fresh_session_keyring();
            super::landlock(policy, false)
        })
        .and_then(|()| {
            seccomp::apply(Filter {
                deny_network: false,
            })
        })
        .and_then(|()| super::bridge::start(policy))
        .and_then(|mut env| {
            env.extend_from_slice(marker);
            super::exec(command, &env)
        });
    if let Err(e) = failed {
        eprintln!("paddock sandbox: the wall could not be built: {e}");
    }
    std::process::exit(super::EXIT_WALL_FAILED);
}

/// Whether every writer of the pipe `read` ends is gone (the helper ended).
fn hung_up(read: &OwnedFd) -> bool {
    use rustix::event::{PollFd, PollFlags, Timespec};
    let mut fds = [PollFd::new(read, PollFlags::IN)];
    let now = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match rustix::event::poll(&mut fds, Some(&now)) {
        Ok(_) => fds[0].revents().intersects(PollFlags::HUP | PollFlags::ERR),
        Err(_) => true,
    }
}

/// Mount system calls, with errors that name the path.
#[allow(unsafe_code)]
mod mount {
    use super::*;

    fn c(path: &Path) -> Result<CString, String> {
        CString::new(path.as_os_str().as_bytes())
            .map_err(|_| format!("{}: NUL in path", path.display()))
    }

    fn check(rc: libc::c_int, what: &str, path: &Path) -> Result<(), String> {
        if rc == 0 {
            Ok(())
        } else {
            Err(format!(
                "{what} {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            ))
        }
    }

    pub fn unshare(flags: libc::c_int) -> Result<(), String> {
        // SAFETY: plain flags.
        let rc = unsafe { libc::unshare(flags) };
        check(rc, "unshare", Path::new("(namespaces)"))
    }

    /// Mount changes stay in this namespace.
    pub fn private_root() -> Result<(), String> {
        let root = c(Path::new("/"))?;
        // SAFETY: valid C strings; null source, type and data are allowed for MS_PRIVATE.
        let rc = unsafe {
            libc::mount(
                std::ptr::null(),
                root.as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            )
        };
        check(rc, "make private", Path::new("/"))
    }

    /// An empty tmpfs over `dir`; `read_only` for hidden folders.
    pub fn tmpfs(dir: &Path, read_only: bool) -> Result<(), String> {
        let target = c(dir)?;
        let fstype = c(Path::new("tmpfs"))?;
        let mut flags = libc::MS_NOSUID | libc::MS_NODEV;
        if read_only {
            flags |= libc::MS_RDONLY;
        }
        // SAFETY: valid C strings; no data.
        let rc = unsafe {
            libc::mount(
                fstype.as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                flags,
                std::ptr::null(),
            )
        };
        check(rc, "empty", dir)
    }

    pub fn open_path(path: &Path) -> Result<OwnedFd, String> {
        rustix::fs::open(
            path,
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        )
        .map_err(|e| format!("open {}: {e}", path.display()))
    }

    fn bind(source: &Path, target: &Path) -> Result<(), String> {
        let (s, t) = (c(source)?, c(target)?);
        // SAFETY: valid C strings; a bind mount takes no type or data.
        let rc = unsafe {
            libc::mount(
                s.as_ptr(),
                t.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REC,
                std::ptr::null(),
            )
        };
        check(rc, "bind", target)
    }

    /// Binds what `fd` holds (opened before its folder was emptied) back at `path`.
    pub fn bind_back(fd: &OwnedFd, path: &Path, read_only: bool) -> Result<(), String> {
        let is_dir = rustix::fs::fstat(fd).is_ok_and(|st| {
            rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Directory
        });
        if is_dir {
            std::fs::create_dir_all(path).map_err(|e| format!("{}: {e}", path.display()))?;
        } else {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            // A mount point only where there is none: an existing file (a host program
            // the front is shown over) is never opened for writing.
            if std::fs::symlink_metadata(path).is_err() {
                std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
            }
        }
        let source = PathBuf::from(format!("/proc/self/fd/{}", fd.as_raw_fd()));
        bind(&source, path)?;
        if read_only {
            remount_read_only(path)?;
        }
        Ok(())
    }

    pub fn bind_null(path: &Path) -> Result<(), String> {
        bind(Path::new("/dev/null"), path)
    }

    /// A read-only bind of `path` over itself.
    pub fn read_only(path: &Path) -> Result<(), String> {
        bind(path, path)?;
        remount_read_only(path)
    }

    /// Makes the mount at `path` read-only (its own flags only, not what is mounted inside).
    pub fn remount_read_only(path: &Path) -> Result<(), String> {
        let t = c(path)?;
        // A mount copied from the host keeps its locked flags (nosuid, nodev, noexec...): a
        // remount that dropped one would be refused, so they are asked for again.
        let kept = rustix::fs::statvfs(path).map_or(0, |st| {
            use rustix::fs::StatVfsMountFlags as F;
            [
                (F::NOSUID, libc::MS_NOSUID),
                (F::NODEV, libc::MS_NODEV),
                (F::NOEXEC, libc::MS_NOEXEC),
                (F::NOATIME, libc::MS_NOATIME),
                (F::NODIRATIME, libc::MS_NODIRATIME),
                (F::RELATIME, libc::MS_RELATIME),
            ]
            .into_iter()
            .filter(|(f, _)| st.f_flag.contains(*f))
            .fold(0, |acc, (_, m)| acc | m)
        });
        // SAFETY: valid C string; remounting a bind changes only this mount's flags.
        let rc = unsafe {
            libc::mount(
                std::ptr::null(),
                t.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept,
                std::ptr::null(),
            )
        };
        check(rc, "make read-only", path)
    }

    pub fn fresh_proc() -> Result<(), String> {
        let target = c(Path::new("/proc"))?;
        let fstype = c(Path::new("proc"))?;
        // SAFETY: valid C strings; no data.
        let rc = unsafe {
            libc::mount(
                fstype.as_ptr(),
                target.as_ptr(),
                fstype.as_ptr(),
                libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
                std::ptr::null(),
            )
        };
        check(rc, "mount", Path::new("/proc"))
    }
}
