//! The helpers that stay outside the wall as its subreaper, so that everything below them
//! (detached, double-forked, or left by a bubblewrap that died) comes back to them and is
//! ended when the command ends, when they are told to stop, or when Paddock dies (their death
//! signal is SIGTERM, so they get to do it):
//!
//! - the Landlock-only wall: the command runs in a child with a session of its own, Landlock
//!   and the seccomp filter;
//! - the launcher of bubblewrap: bubblewrap arms its own death signal only after it has
//!   cloned its sandbox's init, and that init only once its mounts are done; a Paddock that
//!   died in between left the sandbox running. Below the launcher nothing outlives it.

use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use rustix::process::{Pid, Signal};

use super::sys;
use crate::policy::Policy;
use crate::seccomp::{self, Filter};

/// Set by SIGTERM/SIGINT/SIGHUP: stop the command and everything it started.
static STOP: AtomicBool = AtomicBool::new(false);
/// The direct child, once forked: the signal handler kills it, so a wait in progress ends.
static CHILD: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
    // Only system calls here. Never pid 0 (that would be our whole process group).
    if let Some(child) = Pid::from_raw(CHILD.load(Ordering::SeqCst)) {
        let _ = rustix::process::kill_process(child, Signal::KILL);
    }
}

/// The Landlock-only wall around `command`, `marker` added to its environment.
pub fn run(
    policy: &Policy,
    command: &[OsString],
    marker: &[(&'static str, String)],
) -> Result<i32, String> {
    supervise(Orphans::Reap, |parent| {
        sys::setsid();
        if !super::dies_with(parent) {
            std::process::exit(super::EXIT_WALL_FAILED);
        }
        sys::fresh_session_keyring();
        sys::drop_capabilities()
            .map_err(|e| format!("dropping capabilities: {e}"))
            .and_then(|()| super::landlock(policy, !policy.network))
            .and_then(|()| {
                seccomp::apply(Filter {
                    deny_network: !policy.network,
                })
            })
            .and_then(|()| super::exec(command, marker))
    })
}

/// The launcher: `command` (bubblewrap and the wall inside it), `marker` added to its
/// environment.
pub fn launch(command: &[OsString], marker: &[(&'static str, String)]) -> Result<i32, String> {
    supervise(Orphans::Kill, |parent| {
        if !super::dies_with(parent) {
            std::process::exit(super::EXIT_WALL_FAILED);
        }
        super::exec(command, marker)
    })
}

/// What is left below once the command has ended by itself.
#[derive(PartialEq)]
enum Orphans {
    /// Killed and reaped until none is left: each may hand its own children to us.
    Reap,
    /// Killed, not waited for: below bubblewrap everything is in its PID namespace, whose
    /// init, handed to us when bubblewrap ended, takes the rest along as it dies.
    Kill,
}

/// Becomes a subreaper, forks `start` (which execs, or returns why it could not) and reaps
/// until nothing is left below (told to stop, always); the exit code is the child's. `start`
/// gets this process's pid, its expected parent.
fn supervise(
    orphans: Orphans,
    start: impl FnOnce(i32) -> Result<i32, String>,
) -> Result<i32, String> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .map_err(|e| format!("cannot become a subreaper: {e}"))?;
    catch_stop_signals();
    if STOP.load(Ordering::SeqCst) {
        return Ok(128 + libc::SIGTERM);
    }
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let child = sys::fork().map_err(|e| format!("fork: {e}"))?;
    if child == 0 {
        if let Err(e) = start(me) {
            eprintln!("paddock sandbox: the wall could not be built: {e}");
        }
        std::process::exit(super::EXIT_WALL_FAILED);
    }
    CHILD.store(child, Ordering::SeqCst);
    // A stop that came before the child was known: the handler could not kill it.
    if STOP.load(Ordering::SeqCst) {
        sys::kill(child, libc::SIGKILL);
    }
    let mut code = None;
    loop {
        // Once the command is done (or we are told to stop), what it left behind goes too;
        // each reaped orphan may hand its own children to us, so again before every wait.
        // Then a wait blocks only for a child just killed: an orphan handed to us meanwhile
        // wakes nobody, and is seen at the next look.
        let stop = STOP.load(Ordering::SeqCst);
        let ending = code.is_some() || stop;
        let killed = ending && kill_children() > 0;
        if code.is_some() && !stop && orphans == Orphans::Kill {
            break;
        }
        match sys::wait_any(!ending || killed) {
            sys::Waited::Child(pid, status) if pid == child => {
                CHILD.store(0, Ordering::SeqCst);
                code = Some(sys::exit_code(status));
            }
            sys::Waited::Child(..) | sys::Waited::Interrupted => {}
            sys::Waited::Running => std::thread::sleep(std::time::Duration::from_millis(1)),
            sys::Waited::None => break,
        }
    }
    Ok(code.unwrap_or(128 + libc::SIGTERM))
}

#[allow(unsafe_code)]
fn catch_stop_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a handler that only stores to atomics and makes a
        // system call; no SA_RESTART, so a waiting waitpid returns EINTR and the loop sees the
        // flag (the handler also kills the child, so a wait that began just after the flag
        // was looked at still ends).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// SIGKILLs every process whose parent is this helper (the command's orphans come here);
/// returns how many.
fn kill_children() -> usize {
    let children = children();
    for pid in &children {
        sys::kill(*pid, libc::SIGKILL);
    }
    children.len()
}

/// This helper's children: the kernel's list for its only thread, else a look at the parent
/// of every process.
fn children() -> Vec<i32> {
    let me = std::process::id();
    if let Ok(list) = std::fs::read_to_string(format!("/proc/self/task/{me}/children")) {
        return list
            .split_whitespace()
            .filter_map(|p| p.parse().ok())
            .collect();
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| crate::owner::stat_field(*pid, 4) == Some(u64::from(me)))
        .collect()
}
