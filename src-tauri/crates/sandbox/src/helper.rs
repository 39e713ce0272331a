//! The sandbox helper: a small single-threaded process that builds the wall around itself and
//! then becomes the command (`exec`). The app and the CLI are multi-threaded; nothing of the
//! wall is set up in them between fork and exec.
//!
//! `<helper> [__sandbox-helper] [--parent OWNER] --policy JSON -- PROGRAM ARGS...`
//! `<helper> [__sandbox-helper] --parent OWNER --launch -- BUBBLEWRAP ARGS...`
//!
//! The wall's first process is always the helper, told its owner (`--parent`, the Paddock
//! process that starts it, [`crate::owner`]): it arms its death signal, then checks that its
//! parent is still that process, and exits (starting nothing) when it is not; every child it
//! forks does the same towards it. So a wall dies with its Paddock whenever Paddock dies,
//! also between its fork and the arming.
//!
//! - launcher: starts bubblewrap and stays outside as the subreaper of everything below it
//!   (bubblewrap arms `--die-with-parent` only after its clone, and its sandbox's init only
//!   after the mounts);
//! - inside bubblewrap: Landlock and seccomp, then exec;
//! - namespaces: user, mount, PID (and network) namespaces, emptied and hidden folders, a
//!   fresh /proc, a new session, Landlock and seccomp, then exec as the namespace's init;
//! - Landlock only: a new session, Landlock and seccomp in a child; the helper stays as its
//!   reaper and ends whatever the command left behind.

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::sync::OnceLock;

use rustix::process::Signal;

pub use crate::owner::HELPER_SUBCOMMAND;
use crate::owner::{OWNER_ENV, Owner};
use crate::policy::{Engine, Policy};
use crate::seccomp::{self, Filter};

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

    /// The full argument list for `policy` and `command`, for a helper started by another
    /// of the wall's processes (bubblewrap).
    pub fn argv(&self, policy: &Policy, command: &[OsString]) -> Vec<OsString> {
        self.wall_argv(None, policy, command)
    }

    /// The same for the wall's first process, started by `owner` itself: it dies with
    /// `owner` and refuses to start once `owner` is gone.
    pub fn argv_for(&self, owner: &Owner, policy: &Policy, command: &[OsString]) -> Vec<OsString> {
        self.wall_argv(Some(owner), policy, command)
    }

    /// The helper as the launcher of `command` (bubblewrap) for `owner`, who starts it: it
    /// stays outside the wall, dies with `owner` and takes everything below it along.
    pub fn launcher_argv(&self, owner: &Owner, command: &[OsString]) -> Vec<OsString> {
        let mut argv = self.start(Some(owner));
        argv.push("--launch".into());
        argv.push("--".into());
        argv.extend(command.iter().cloned());
        argv
    }

    fn wall_argv(
        &self,
        owner: Option<&Owner>,
        policy: &Policy,
        command: &[OsString],
    ) -> Vec<OsString> {
        let mut argv = self.start(owner);
        argv.push("--policy".into());
        argv.push(serde_json::to_string(policy).unwrap_or_default().into());
        argv.push("--".into());
        argv.extend(command.iter().cloned());
        argv
    }

    /// The program, its own arguments, and the owner when there is one.
    fn start(&self, owner: Option<&Owner>) -> Vec<OsString> {
        let mut argv = vec![self.program.clone().into_os_string()];
        argv.extend(self.args.iter().cloned());
        if let Some(owner) = owner {
            argv.push("--parent".into());
            argv.push(owner.to_string().into());
        }
        argv
    }
}

/// What the helper was asked to do.
enum Task {
    /// Build the wall the policy describes and become the command.
    Wall(Box<Policy>),
    /// Start the command (bubblewrap) and stay outside as its launcher.
    Launch,
}

struct Request {
    /// The Paddock process that started the helper, when it is the wall's first process.
    parent: Option<Owner>,
    task: Task,
    command: Vec<OsString>,
}

/// Runs the helper on `args` (everything after the program name, the subcommand included or
/// not). Returns only on failure, with the exit status to use.
pub fn main(args: &[OsString]) -> i32 {
    let args: Vec<&OsStr> = args
        .iter()
        .map(OsString::as_os_str)
        .skip_while(|a| *a == OsStr::new(HELPER_SUBCOMMAND))
        .collect();
    // Inside a wall already: a call's git, or one of its hooks.
    match args.split_first() {
        Some((first, rest)) if *first == OsStr::new(crate::git_checks::FRONT_FLAG) => {
            return crate::git_checks::front(rest);
        }
        Some((first, rest)) if *first == OsStr::new(crate::git_checks::HOOK_FLAG) => {
            return crate::git_checks::hook(rest);
        }
        _ => {}
    }
    let request = match parse(&args) {
        Ok(request) => request,
        Err(e) => {
            eprintln!("paddock sandbox helper: {e}");
            return 2;
        }
    };
    // Armed before the parent is checked: either the check finds Paddock gone, or the signal
    // comes when it goes. The helpers that stay outside a PID namespace (the launcher, the
    // reaper) are told with SIGTERM and end everything below them first; the namespaces
    // helper dies at once, and its child, the namespace's init, takes the namespace along.
    let death = match &request.task {
        Task::Launch => Some(Signal::TERM),
        Task::Wall(policy) => match policy.engine {
            Engine::Landlock => Some(Signal::TERM),
            Engine::Namespaces => Some(Signal::KILL),
            // Inside bubblewrap the parent is its init, whose end ends the namespace.
            Engine::Bubblewrap => request.parent.map(|_| Signal::KILL),
        },
    };
    if let Some(signal) = death {
        let _ = rustix::process::set_parent_process_death_signal(Some(signal));
    }
    if let Some(owner) = &request.parent
        && !owner.is_parent()
    {
        eprintln!(
            "paddock sandbox: the Paddock process that started this wall (pid {}) is gone; \
             nothing was started",
            owner.pid
        );
        return EXIT_WALL_FAILED;
    }
    // Everything behind the wall names its owner, for the sweep of a later Paddock.
    let marker: Vec<(&'static str, String)> = request
        .parent
        .iter()
        .map(|o| (OWNER_ENV, o.to_string()))
        .collect();
    let command = &request.command;
    let result = match &request.task {
        Task::Launch => reaper::launch(command, &marker),
        Task::Wall(policy) => match policy.engine {
            Engine::Bubblewrap => inside_bubblewrap(policy, command, &marker),
            Engine::Namespaces => namespaces::run(policy, command, &marker),
            Engine::Landlock => reaper::run(policy, command, &marker),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("paddock sandbox: the wall could not be built: {e}");
            EXIT_WALL_FAILED
        }
    }
}

const USAGE: &str = "usage: [--parent OWNER] (--policy JSON | --launch) -- PROGRAM ARGS...";

fn parse(args: &[&OsStr]) -> Result<Request, String> {
    let (parent, rest) = match args {
        [flag, owner, rest @ ..] if *flag == "--parent" => {
            let parsed = owner.to_str().and_then(Owner::parse);
            let owner =
                parsed.ok_or_else(|| format!("bad --parent: {}", owner.to_string_lossy()))?;
            (Some(owner), rest)
        }
        _ => (None, args),
    };
    let (task, command) = match rest {
        [flag, json, dashes, command @ ..] if *flag == "--policy" && *dashes == "--" => {
            let policy: Policy = serde_json::from_str(&json.to_string_lossy())
                .map_err(|e| format!("bad policy: {e}"))?;
            (Task::Wall(Box::new(policy)), command)
        }
        [flag, dashes, command @ ..] if *flag == "--launch" && *dashes == "--" => {
            (Task::Launch, command)
        }
        _ => return Err(USAGE.into()),
    };
    if command.is_empty() {
        return Err(USAGE.into());
    }
    Ok(Request {
        parent,
        task,
        command: command.iter().map(|c| c.to_os_string()).collect(),
    })
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

fn inside_bubblewrap(
    policy: &Policy,
    command: &[OsString],
    marker: &[(&'static str, String)],
) -> Result<i32, String> {
    // bubblewrap made the namespaces, mounts and session; add Landlock and the filter.
    sys::fresh_session_keyring();
    landlock(policy, false)?;
    seccomp::apply(Filter {
        deny_network: false,
    })?;
    let mut env = bridge::start(policy)?;
    env.extend_from_slice(marker);
    exec(command, &env)
}

/// In a child just forked: arms SIGKILL for when the parent dies, then checks the parent is
/// still `parent` (false: it went before the signal was armed; start nothing).
fn dies_with(parent: i32) -> bool {
    let _ = rustix::process::set_parent_process_death_signal(Some(Signal::KILL));
    rustix::process::getppid().is_some_and(|p| p.as_raw_nonzero().get() == parent)
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

    /// What a wait for any child saw.
    pub enum Waited {
        /// A child ended: its pid and wait status.
        Child(libc::pid_t, i32),
        /// A signal came first (its handler may have asked for something).
        Interrupted,
        /// Children are left, none has ended yet (only when not waiting for one).
        Running,
        /// There are no children left.
        None,
    }

    /// Waits for any child to end; with `block` false, only looks.
    pub fn wait_any(block: bool) -> Waited {
        let mut status = 0;
        let flags = if block { 0 } else { libc::WNOHANG };
        // SAFETY: status points to a live integer.
        let pid = unsafe { libc::waitpid(-1, &mut status, flags) };
        if pid > 0 {
            Waited::Child(pid, status)
        } else if pid == 0 {
            Waited::Running
        } else if io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
            Waited::Interrupted
        } else {
            Waited::None
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(args: &[&str]) -> Result<Request, String> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        parse(&args)
    }

    #[test]
    fn the_first_process_is_told_its_owner_and_the_rest_are_not() {
        let owner = "4026531836-42-1000";
        let launch = parsed(&["--parent", owner, "--launch", "--", "bwrap", "x"]).unwrap();
        assert!(matches!(launch.task, Task::Launch));
        assert_eq!(launch.parent, Owner::parse(owner));
        assert_eq!(launch.command, ["bwrap", "x"]);
        let policy = serde_json::to_string(&crate::policy::Policy {
            engine: Engine::Landlock,
            writable: Vec::new(),
            read_only: Vec::new(),
            emptied: Vec::new(),
            private: Vec::new(),
            visible: Vec::new(),
            overlays: Vec::new(),
            hidden: Vec::new(),
            network: false,
            proxy: None,
            loopback: Vec::new(),
            landlock_abi: None,
            workdir: "/".into(),
        })
        .unwrap();
        let inside = parsed(&["--policy", &policy, "--", "bash"]).unwrap();
        assert!(matches!(inside.task, Task::Wall(_)) && inside.parent.is_none());
        for bad in [
            &["--parent", "42", "--launch", "--", "bwrap"][..],
            &["--parent", owner, "--launch", "--"],
            &["--launch", "bwrap"],
            &["--parent", owner],
        ] {
            assert!(parsed(bad).is_err(), "{bad:?}");
        }
    }
}
