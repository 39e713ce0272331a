//! The Landlock-only wall: the command runs in a child with a session of its own, Landlock
//! and the seccomp filter; the helper stays as its subreaper, so everything the command
//! starts (detached, double-forked) comes back to it and is ended when the command ends or
//! the helper is told to stop.

use std::ffi::OsString;
use std::sync::atomic::{AtomicBool, Ordering};

use super::sys;
use crate::policy::Policy;
use crate::seccomp::{self, Filter};

/// Set by SIGTERM/SIGINT/SIGHUP: stop the command and everything it started.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_stop(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

pub fn run(policy: &Policy, command: &[OsString]) -> Result<i32, String> {
    // Paddock gone: clean up as if told to stop.
    sys::die_with_parent(libc::SIGTERM);
    become_subreaper()?;
    catch_stop_signals();
    let child = sys::fork().map_err(|e| format!("fork: {e}"))?;
    if child == 0 {
        sys::setsid();
        sys::die_with_parent(libc::SIGKILL);
        sys::fresh_session_keyring();
        let failed = sys::drop_capabilities()
            .map_err(|e| format!("dropping capabilities: {e}"))
            .and_then(|()| super::landlock(policy, !policy.network))
            .and_then(|()| {
                seccomp::apply(Filter {
                    deny_network: !policy.network,
                })
            })
            .and_then(|()| super::exec(command, &[]));
        if let Err(e) = failed {
            eprintln!("paddock sandbox: the wall could not be built: {e}");
        }
        std::process::exit(super::EXIT_WALL_FAILED);
    }
    let mut code = None;
    loop {
        // Once the command is done (or we are told to stop), what it left behind goes too;
        // each reaped orphan may hand its own children to us, so again before every wait.
        if code.is_some() || STOP.load(Ordering::SeqCst) {
            kill_children();
        }
        match sys::wait_any() {
            Some((pid, status)) if pid == child => code = Some(sys::exit_code(status)),
            Some(_) => {}
            None => break,
        }
    }
    Ok(code.unwrap_or(128 + libc::SIGTERM))
}

#[allow(unsafe_code)]
fn become_subreaper() -> Result<(), String> {
    // SAFETY: prctl with plain integer arguments.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } != 0 {
        return Err(format!(
            "cannot become a subreaper: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[allow(unsafe_code)]
fn catch_stop_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        // SAFETY: a zeroed sigaction with a handler that only stores to an atomic; no
        // SA_RESTART, so a waiting waitpid returns EINTR and the loop sees the flag.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_stop as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// SIGKILLs every process whose parent is this helper (the command's orphans come here).
fn kill_children() {
    let me = std::process::id();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        if parent_of(pid) == Some(me) {
            sys::kill(pid, libc::SIGKILL);
        }
    }
}

/// The parent pid from `/proc/PID/stat` (the field after the parenthesised name).
fn parent_of(pid: i32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}
