//! The sandbox helper: a small single-threaded process that builds the wall around itself and
//! then becomes the command (`exec`). The app and the CLI are multi-threaded; nothing of the
//! wall is set up in them between fork and exec.
//!
//! `<helper> [__sandbox-helper] --policy JSON -- PROGRAM ARGS...`
//!
//! - inside bubblewrap: Landlock and seccomp, then exec;
//! - namespaces: user, mount, PID (and network) namespaces, emptied and hidden folders, a
//!   fresh /proc, a new session, Landlock and seccomp, then exec as the namespace's init;
//! - Landlock only: a new session, Landlock and seccomp in a child; the helper stays as its
//!   reaper and ends whatever the command left behind.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::policy::{Engine, Policy};
use crate::seccomp::{self, Filter};

/// The first argument that makes a Paddock binary run as the helper.
pub const HELPER_SUBCOMMAND: &str = "__sandbox-helper";
/// Exit status when the wall could not be built (the command never ran).
pub const EXIT_WALL_FAILED: i32 = 125;

/// The helper this process uses: set by a shell that is its own helper (the CLI), else found
/// beside the program.
static DEFAULT: OnceLock<Option<HelperCommand>> = OnceLock::new();

/// Makes `helper` the one this process uses; call before anything is confined.
pub fn set_default(helper: HelperCommand) {
    let _ = DEFAULT.set(Some(helper));
}

/// The helper this process uses, if there is one.
pub fn default() -> Option<&'static HelperCommand> {
    DEFAULT.get_or_init(HelperCommand::find).as_ref()
}

/// How a Paddock process starts the helper: a program and the arguments before `--policy`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HelperCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
}

impl HelperCommand {
    /// The `paddock-sandbox-helper` binary beside the running program (or one directory up,
    /// for test binaries in `target/*/deps`), or where `PADDOCK_SANDBOX_HELPER` says.
    pub fn find() -> Option<Self> {
        if let Some(path) = std::env::var_os("PADDOCK_SANDBOX_HELPER").filter(|p| !p.is_empty()) {
            return Some(Self {
                program: path.into(),
                args: Vec::new(),
            });
        }
        let exe = std::env::current_exe().ok()?;
        let dir = exe.parent()?;
        [dir.to_path_buf(), dir.parent()?.to_path_buf()]
            .into_iter()
            .map(|d| d.join("paddock-sandbox-helper"))
            .find(|p| p.is_file())
            .map(|program| Self {
                program,
                args: Vec::new(),
            })
    }

    /// The running program itself, which dispatches [`HELPER_SUBCOMMAND`] (the `paddock` CLI).
    pub fn this_program() -> Option<Self> {
        Some(Self {
            program: std::env::current_exe().ok()?,
            args: vec![HELPER_SUBCOMMAND.into()],
        })
    }

    /// The full argument list for `policy` and `command`.
    pub fn argv(&self, policy: &Policy, command: &[OsString]) -> Vec<OsString> {
        let mut argv = vec![self.program.clone().into_os_string()];
        argv.extend(self.args.iter().cloned());
        argv.push("--policy".into());
        argv.push(serde_json::to_string(policy).unwrap_or_default().into());
        argv.push("--".into());
        argv.extend(command.iter().cloned());
        argv
    }
}

/// Runs the helper on `args` (everything after the program name, the subcommand included or
/// not). Returns only on failure, with the exit status to use.
pub fn main(args: &[OsString]) -> i32 {
    let args: Vec<&OsStr> = args
        .iter()
        .map(OsString::as_os_str)
        .skip_while(|a| *a == OsStr::new(HELPER_SUBCOMMAND))
        .collect();
    let (policy, command) = match parse(&args) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("paddock sandbox helper: {e}");
            return 2;
        }
    };
    let result = match policy.engine {
        Engine::Bubblewrap => inside_bubblewrap(&policy, &command),
        Engine::Namespaces => namespaces::run(&policy, &command),
        Engine::Landlock => reaper::run(&policy, &command),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("paddock sandbox: the wall could not be built: {e}");
            EXIT_WALL_FAILED
        }
    }
}

fn parse(args: &[&OsStr]) -> Result<(Policy, Vec<OsString>), String> {
    let [flag, json, dashes, command @ ..] = args else {
        return Err("usage: --policy JSON -- PROGRAM ARGS...".into());
    };
    if *flag != "--policy" || *dashes != "--" || command.is_empty() {
        return Err("usage: --policy JSON -- PROGRAM ARGS...".into());
    }
    let policy: Policy =
        serde_json::from_str(&json.to_string_lossy()).map_err(|e| format!("bad policy: {e}"))?;
    Ok((policy, command.iter().map(|c| c.to_os_string()).collect()))
}

/// Landlock over the writable folders (abstract sockets and signals scoped), when the kernel
/// has it.
fn landlock(policy: &Policy, deny_tcp: bool) -> Result<(), String> {
    if policy.landlock_abi.is_none() {
        return Ok(());
    }
    crate::linux::LandlockRules::build(&policy.writable, deny_tcp, true)?
        .restrict_self()
        .map_err(|e| format!("Landlock: {e}"))
}

/// Replaces this process with the command, `env` added to what it inherits.
fn exec(command: &[OsString], env: &[(&str, String)]) -> Result<i32, String> {
    let err = std::process::Command::new(&command[0])
        .args(&command[1..])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .exec();
    Err(format!(
        "cannot run {}: {err}",
        command[0].to_string_lossy()
    ))
}

fn inside_bubblewrap(policy: &Policy, command: &[OsString]) -> Result<i32, String> {
    // bubblewrap made the namespaces, mounts and session; add Landlock and the filter.
    sys::fresh_session_keyring();
    landlock(policy, false)?;
    seccomp::apply(Filter {
        deny_network: false,
    })?;
    let env = bridge::start(policy)?;
    exec(command, &env)
}

/// Raw system calls of the helper, in one place.
#[allow(unsafe_code)]
mod sys {
    use std::io;

    /// Dies (with `signal`) when the parent does.
    pub fn die_with_parent(signal: i32) {
        // SAFETY: prctl with plain integer arguments.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0);
        }
    }

    /// Leaves the session keyring Paddock was started with for a new, empty one, so nothing
    /// the user's session holds is in reach even if the filter were absent. Best effort.
    pub fn fresh_session_keyring() {
        const KEYCTL_JOIN_SESSION_KEYRING: libc::c_long = 1;
        // SAFETY: keyctl with a null name joins a new anonymous keyring; no memory is passed.
        unsafe {
            libc::syscall(
                libc::SYS_keyctl,
                KEYCTL_JOIN_SESSION_KEYRING,
                std::ptr::null::<libc::c_char>(),
            );
        }
    }

    pub fn setsid() {
        // SAFETY: no arguments; failure (already a leader) is harmless here.
        unsafe {
            libc::setsid();
        }
    }

    pub fn fork() -> io::Result<libc::pid_t> {
        // SAFETY: the helper is single-threaded; the child only makes system calls and execs.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(pid)
        }
    }

    /// Waits for any child; `None` when there are none left.
    pub fn wait_any() -> Option<(libc::pid_t, i32)> {
        loop {
            let mut status = 0;
            // SAFETY: status points to a live integer.
            let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
            if pid > 0 {
                return Some((pid, status));
            }
            if io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
                return None;
            }
        }
    }

    pub fn exit_code(status: i32) -> i32 {
        if libc::WIFEXITED(status) {
            libc::WEXITSTATUS(status)
        } else if libc::WIFSIGNALED(status) {
            128 + libc::WTERMSIG(status)
        } else {
            1
        }
    }

    /// Gives up every capability: bounding set, ambient, effective, permitted, inheritable.
    /// In a user namespace of its own the process holds them all, and could otherwise undo
    /// the wall (unmount an emptied /tmp); as root it would keep root's.
    pub fn drop_capabilities() -> io::Result<()> {
        #[repr(C)]
        struct Header {
            version: u32,
            pid: i32,
        }
        #[repr(C)]
        #[derive(Clone, Copy)]
        struct Data {
            effective: u32,
            permitted: u32,
            inheritable: u32,
        }
        const VERSION_3: u32 = 0x2008_0522;
        // SAFETY: prctl with integers; capset with pointers to live, correctly laid out
        // structs (two data entries for version 3).
        unsafe {
            libc::prctl(
                libc::PR_CAP_AMBIENT,
                libc::PR_CAP_AMBIENT_CLEAR_ALL,
                0,
                0,
                0,
            );
            for cap in 0..64 {
                libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
            }
            let mut header = Header {
                version: VERSION_3,
                pid: 0,
            };
            let mut data = [Data {
                effective: 0,
                permitted: 0,
                inheritable: 0,
            }; 2];
            if libc::syscall(libc::SYS_capset, &mut header, data.as_mut_ptr()) != 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    }

    pub fn kill(pid: libc::pid_t, signal: i32) {
        // SAFETY: plain integers.
        unsafe {
            libc::kill(pid, signal);
        }
    }
}

mod bridge;
mod namespaces;
mod reaper;
