//! Which Paddock process a wall belongs to, and the sweep at start-up of walls whose Paddock
//! is gone.
//!
//! The first process of every wall (the helper) is told its owner (`--parent`): the Paddock
//! process that starts it, named by its PID namespace, pid and start time, so neither a
//! recycled pid nor another namespace's pid is ever taken for it. The helper arms its death
//! signal, checks that its parent is still that process, and hands the owner down to
//! everything behind the wall as [`OWNER_ENV`]. A wall dies with its Paddock; should one
//! survive anyway (its helper killed from outside, a Paddock from before this), the next
//! Paddock ends it: a process of this user carrying an owner that no longer runs.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::OnceLock;

use rustix::process::{Pid, PidfdFlags, Signal};

/// The first argument that makes a Paddock binary run as the helper.
pub const HELPER_SUBCOMMAND: &str = "__sandbox-helper";

/// Set on everything behind a wall: the [`Owner`] that started it.
pub const OWNER_ENV: &str = "PADDOCK_WALL_OWNER";

/// The Paddock process that started a wall.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owner {
    /// The inode of its PID namespace: its pid means something only there.
    pub pidns: u64,
    pub pid: i32,
    /// When it started, in clock ticks since boot (`/proc/PID/stat`): tells a recycled pid.
    pub start: u64,
}

impl Owner {
    /// This process, read once; `None` without a readable `/proc`.
    pub fn this_process() -> Option<Self> {
        static THIS: OnceLock<Option<Owner>> = OnceLock::new();
        *THIS.get_or_init(|| {
            let pid = i32::try_from(std::process::id()).ok()?;
            Some(Self {
                pidns: pid_namespace(Path::new("/proc/self"))?,
                pid,
                start: start_time(pid)?,
            })
        })
    }

    /// Whether the calling process's parent is still this owner. Asked after the death
    /// signal is armed: were the owner gone, the process has been handed to another parent.
    pub fn is_parent(&self) -> bool {
        rustix::process::getppid().is_some_and(|p| p.as_raw_nonzero().get() == self.pid)
    }

    /// Whether the owner still runs (judged in this PID namespace).
    fn runs(&self) -> bool {
        start_time(self.pid) == Some(self.start)
    }

    /// The form in an argument and in [`OWNER_ENV`]: `PIDNS-PID-START`.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.split('-');
        let owner = Self {
            pidns: parts.next()?.parse().ok()?,
            pid: parts.next()?.parse().ok().filter(|p| *p > 0)?,
            start: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(owner)
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}-{}", self.pidns, self.pid, self.start)
    }
}

/// The inode of the PID namespace of the process at `proc` (`/proc/PID`).
fn pid_namespace(proc: &Path) -> Option<u64> {
    std::fs::metadata(proc.join("ns/pid")).ok().map(|m| m.ino())
}

/// Field 22 of `/proc/PID/stat`, after the parenthesised name.
fn start_time(pid: i32) -> Option<u64> {
    stat_field(pid, 22)
}

/// A numeric field (counted from 1, as in proc(5)) of `/proc/PID/stat`, from field 3 on.
pub(crate) fn stat_field(pid: i32, field: usize) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after
        .split_whitespace()
        .nth(field.checked_sub(3)?)?
        .parse()
        .ok()
}

/// Sweeps enough times to catch what a process forked while the last sweep ran.
const PASSES: usize = 20;

/// Kills (SIGKILL) every process of this user that belongs to a wall whose owner no longer
/// runs: carrying [`OWNER_ENV`] of a gone Paddock, or a helper started with `--parent` for
/// one. Walls of a Paddock in another PID namespace (this one running inside a wall or a
/// container, say) are left alone: their owner cannot be judged from here. Returns the
/// processes killed. Call once when Paddock starts.
pub fn sweep_walls_left_behind() -> Vec<i32> {
    let Some(me) = Owner::this_process() else {
        return Vec::new();
    };
    let uid = rustix::process::getuid().as_raw();
    let mut killed: Vec<(i32, u64)> = Vec::new();
    for _ in 0..PASSES {
        let before = killed.len();
        for pid in processes() {
            if pid == me.pid || killed.iter().any(|(k, _)| *k == pid) {
                continue;
            }
            if let Some(start) = kill_if_left_behind(pid, &me, uid) {
                killed.push((pid, start));
            }
        }
        if killed.len() == before {
            break;
        }
    }
    killed.into_iter().map(|(pid, _)| pid).collect()
}

/// The pids in `/proc`.
fn processes() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// Kills `pid` when it belongs to a wall left behind; returns its start time then.
fn kill_if_left_behind(pid: i32, me: &Owner, uid: u32) -> Option<u64> {
    let proc = Path::new("/proc").join(pid.to_string());
    if std::fs::metadata(&proc).ok()?.uid() != uid {
        return None;
    }
    let target = Pid::from_raw(pid)?;
    // Held from before the process is looked at, so the one judged is the one killed even
    // if its pid were recycled meanwhile (kernels before 5.3 have none: there the start time
    // looked at again just before the kill is all).
    let handle = rustix::process::pidfd_open(target, PidfdFlags::empty());
    let start = start_time(pid)?;
    let owner = owner_of(&proc)?;
    if owner.pidns != me.pidns || owner == *me || owner.runs() {
        return None;
    }
    if start_time(pid) != Some(start) {
        return None;
    }
    match &handle {
        Ok(handle) => rustix::process::pidfd_send_signal(handle, Signal::KILL).ok()?,
        Err(_) => rustix::process::kill_process(target, Signal::KILL).ok()?,
    }
    Some(start)
}

/// The owner a process names: in its environment, or as a helper's `--parent` argument.
fn owner_of(proc: &Path) -> Option<Owner> {
    let environ = std::fs::read(proc.join("environ")).unwrap_or_default();
    let prefix = format!("{OWNER_ENV}=");
    let from_env = environ
        .split(|b| *b == 0)
        .find_map(|entry| entry.strip_prefix(prefix.as_bytes()))
        .and_then(|v| Owner::parse(std::str::from_utf8(v).ok()?));
    from_env.or_else(|| {
        let cmdline = std::fs::read(proc.join("cmdline")).ok()?;
        helper_owner(&cmdline)
    })
}

/// The `--parent` of a helper's command line (`paddock-sandbox-helper`, or a Paddock
/// program run as `PROGRAM __sandbox-helper`) that goes on to `--policy` or `--launch`.
fn helper_owner(cmdline: &[u8]) -> Option<Owner> {
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    let program = Path::new(std::str::from_utf8(args.first()?).ok()?);
    let is_helper = program
        .file_name()
        .is_some_and(|n| n == "paddock-sandbox-helper")
        || args.get(1) == Some(&HELPER_SUBCOMMAND.as_bytes());
    if !is_helper {
        return None;
    }
    args.windows(3).find_map(|w| match w {
        [flag, owner, next]
            if *flag == b"--parent" && (*next == b"--policy" || *next == b"--launch") =>
        {
            Owner::parse(std::str::from_utf8(owner).ok()?)
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_reads_back_and_refuses_other_shapes() {
        let me = Owner::this_process().unwrap();
        assert_eq!(me.pid as u32, std::process::id());
        assert_eq!(Owner::parse(&me.to_string()), Some(me));
        assert!(me.runs());
        for bad in ["", "1-2", "1-2-3-4", "a-2-3", "1-0-3", "1--2-3", "1-2-x"] {
            assert_eq!(Owner::parse(bad), None, "{bad}");
        }
        let gone = Owner {
            start: me.start + 1,
            ..me
        };
        assert!(!gone.runs(), "a recycled pid is not the owner");
    }

    #[test]
    fn only_a_helpers_command_line_names_an_owner() {
        let line = |args: &[&str]| args.join("\0").into_bytes();
        let owner = "4026531836-42-1000";
        let want = Owner::parse(owner);
        assert!(want.is_some());
        for helper in [
            line(&[
                "/x/paddock-sandbox-helper",
                "--parent",
                owner,
                "--launch",
                "--",
                "bwrap",
            ]),
            line(&[
                "/x/paddock",
                "__sandbox-helper",
                "--parent",
                owner,
                "--policy",
                "{}",
            ]),
        ] {
            assert_eq!(helper_owner(&helper), want);
        }
        for other in [
            line(&["/bin/sleep", "--parent", owner, "--launch"]),
            line(&["/x/paddock-sandbox-helper", "--parent", owner, "--other"]),
            line(&["/x/paddock", "exec", "--parent", owner, "--policy"]),
        ] {
            assert_eq!(helper_owner(&other), None);
        }
    }
}
