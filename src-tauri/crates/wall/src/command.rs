//! A command run behind the wall bash runs behind: in the workspace, with a scrubbed
//! environment, a private TMPDIR, the project's network policy, a time limit that kills the
//! whole process group, bounded redacted output, and the files other programs run held when
//! it changed them. `bash` is one caller; hooks are another (their JSON on stdin).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;

use crate::capture::{Capture, capture_into};
use paddock_core::ToolContext;
use paddock_sandbox::autorun::Surfaces;
use paddock_sandbox::{Confinement, Redactor, SandboxConfig, looks_secret, scrubbed_env};

use crate::Wall;
use crate::git_gate::GitGate;
use crate::process::{ProcessGroup, TmpDir};

/// Bytes of stdout kept (head and tail); the middle is cut with a marker.
pub const STDOUT_CAP_BYTES: usize = 24_000;
/// Bytes of stderr kept (head and tail).
pub const STDERR_CAP_BYTES: usize = 8_000;
/// After the command exits, how long to wait for output still in the pipes.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// Starts again when a path the wall masks vanished before its mounts (the command never ran).
const VANISHED_MASK_RETRIES: usize = 2;
/// Exit code reported when the time limit was hit.
pub const EXIT_TIMEOUT: i32 = 124;
/// Exit code reported when the run was cancelled.
pub const EXIT_ABORTED: i32 = 130;
/// Exit code reported when the command could not be started.
pub const EXIT_NOT_STARTED: i32 = 127;
/// Host variables whose values are redacted when they look secret and are at least this long.
const MIN_HOST_SECRET_LEN: usize = 8;

/// How a walled command ended: its exit code (124 timed out, 130 cancelled, 127 never
/// started), its streams (redacted, cut in the middle when long) and what Paddock noted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walled {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    /// stdout was longer than [`STDOUT_CAP_BYTES`]: its middle is cut.
    pub stdout_cut: bool,
    pub notes: Vec<String>,
    /// Why the wall never started the command (its exit code is then 127, which a command
    /// that did start may return too: this field, not the code, says which it was).
    pub not_started: Option<String>,
}

impl Walled {
    fn not_started(why: impl std::fmt::Display) -> Self {
        let why = why.to_string();
        Self {
            exit_code: EXIT_NOT_STARTED,
            stdout: String::new(),
            stderr: String::new(),
            stdout_cut: false,
            notes: vec![why.clone()],
            not_started: Some(why),
        }
    }

    pub fn timed_out(&self) -> bool {
        self.exit_code == EXIT_TIMEOUT
    }
}

/// Whether bash's network is the allow-list (rules named, the whole network not granted):
/// then the proxy is its only way out; otherwise it has all of the network or none.
pub(crate) fn through_proxy(sandbox: &SandboxConfig) -> bool {
    sandbox.network_rules.is_some() && !sandbox.bash_network
}

/// What runs behind the wall: a command line for `bash -c`, what its standard input gets
/// (else nothing), and variables set on top of the scrubbed environment.
#[derive(Debug, Clone, Copy)]
pub struct WalledCommand<'a> {
    pub line: &'a str,
    pub stdin: Option<&'a [u8]>,
    pub vars: &'a [(&'a str, String)],
}

impl<'a> WalledCommand<'a> {
    /// A command line with no input and no extra variables.
    pub fn line(line: &'a str) -> Self {
        Self {
            line,
            stdin: None,
            vars: &[],
        }
    }
}

/// Runs `command` with `bash -c` behind the wall of `env` for at most `limit`.
pub async fn run_walled(
    wall: &Wall<'_>,
    command: &WalledCommand<'_>,
    limit: Duration,
    ctx: &ToolContext,
) -> Walled {
    // bash may write in the workspace like file_write does, so it may create the root too.
    let root = match wall.guard().create_root() {
        Ok(root) => root,
        Err(e) => return Walled::not_started(format!("bash could not start: {e}")),
    };
    let cwd = root.real_path().to_path_buf();
    let tmp = match TmpDir::for_command(wall) {
        Ok(tmp) => tmp,
        Err(e) => return Walled::not_started(format!("bash could not create its TMPDIR: {e}")),
    };
    let writable = [cwd.clone(), tmp.path.clone()];
    // What other programs run (git's metadata, .envrc...): kept read-only behind the wall,
    // and compared after the call.
    let before = scan(&cwd, &wall.sandbox.auto_run).await;
    let mut sandbox = wall.sandbox.clone();
    sandbox
        .read_only
        .extend(before.iter().flat_map(Surfaces::read_only));
    let git = match unattended_git(ctx, before.as_ref(), &cwd, &mut sandbox) {
        Ok(git) => git,
        Err(e) => return Walled::not_started(format!("bash could not prepare its git: {e}")),
    };
    // An allow-listed network: this call's own listener of the proxy, its only way out.
    let gate = match (wall.network, through_proxy(&sandbox)) {
        (Some(fence), true) => {
            let id = ctx.call.as_ref().map_or("bash", |c| c.id.as_str());
            match fence.open(
                id,
                &ctx.cancel,
                crate::network::asker_for(ctx),
                Some(ctx.events.clone()),
            ) {
                Ok(gate) => Some(gate),
                Err(e) => {
                    return Walled::not_started(format!("bash could not reach the proxy: {e}"));
                }
            }
        }
        _ => None,
    };
    sandbox.proxy_socket = gate.as_ref().map(|g| g.socket.clone());
    let mut confinement = match Confinement::prepare(&sandbox, wall.workspace_mode, &cwd, &writable)
    {
        Ok(c) => c,
        Err(why) => return Walled::not_started(why),
    };
    let mut notes: Vec<String> = confinement.note().into_iter().collect();
    let mut retries = 0;
    let ran = loop {
        let ran = match start_and_wait(
            &confinement,
            wall,
            command,
            &cwd,
            &tmp,
            &writable,
            git.as_ref(),
            limit,
            ctx,
        )
        .await
        {
            Ok(ran) => ran,
            Err(why) => return Walled::not_started(why),
        };
        // A masked path that vanished before the wall's mounts: the command never ran.
        if retries < VANISHED_MASK_RETRIES && ran.wall_lost_a_mask(&mut confinement) {
            retries += 1;
            continue;
        }
        break ran;
    };
    notes.extend(ran.notes);
    let (exit_code, stdout, stderr) = (ran.exit_code, ran.stdout, ran.stderr);
    drop(tmp);
    // The call's connections end with it; what they did is part of its result.
    if let Some(gate) = gate
        && let Some(lines) = crate::network::describe(&gate.finish().await)
    {
        notes.push(lines);
    }
    // Nothing the command started runs any more: what it left that would run outside the
    // wall is held now, before anything else can run it.
    notes.extend(hold_what_it_left(before, &cwd, wall, ctx).await);

    let redactor = redactor_for(wall);
    let render =
        |c: &Arc<Mutex<Capture>>| c.lock().map(|c| c.render(&redactor)).unwrap_or_default();
    Walled {
        exit_code,
        stdout: render(&stdout),
        stderr: render(&stderr),
        stdout_cut: stdout.lock().is_ok_and(|c| c.is_cut()),
        notes,
        not_started: None,
    }
}

/// Holds what a call left that would run outside the wall (compared with `before`); the
/// note to add, if any.
async fn hold_what_it_left(
    before: Option<Surfaces>,
    cwd: &Path,
    wall: &Wall<'_>,
    ctx: &ToolContext,
) -> Option<String> {
    match (before, scan(cwd, &wall.sandbox.auto_run).await) {
        (Some(before), Some(after)) if !before.incomplete && !after.incomplete => {
            let held = after.held_since(&before);
            if held.is_empty() {
                None
            } else {
                Some(crate::held::hold_after_call(cwd, held, ctx).await)
            }
        }
        _ => Some(
            "[not every file other programs run (git's metadata, .envrc, editor tasks) could \
             be checked after this command: the workspace has too many entries; look before \
             you use git or open it in an editor]"
                .to_owned(),
        ),
    }
}

/// One start of the walled command, until it ends, times out or is cancelled.
struct Ran {
    exit_code: i32,
    notes: Vec<String>,
    stdout: Arc<Mutex<Capture>>,
    stderr: Arc<Mutex<Capture>>,
}

impl Ran {
    fn wall_lost_a_mask(&self, confinement: &mut Confinement) -> bool {
        let Ok(stdout) = self.stdout.lock() else {
            return false;
        };
        let Some(stderr) = self.stderr.lock().ok().and_then(|c| c.whole_text()) else {
            return false;
        };
        self.exit_code == 1 && confinement.lost_a_mask(stdout.total(), &stderr)
    }
}

#[allow(clippy::too_many_arguments)]
async fn start_and_wait(
    confinement: &Confinement,
    wall: &Wall<'_>,
    command: &WalledCommand<'_>,
    cwd: &Path,
    tmp: &TmpDir,
    writable: &[PathBuf],
    git: Option<&GitGate>,
    limit: Duration,
    ctx: &ToolContext,
) -> Result<Ran, String> {
    let mut notes = Vec::new();
    // The wall is built by a helper process (bubblewrap and/or Paddock's helper), never here
    // between fork and exec.
    let mut cmd = confinement.command(
        std::ffi::OsStr::new(bash_program()),
        &["-c".as_ref(), std::ffi::OsStr::new(command.line)],
    );
    let mut env = scrubbed_env(
        std::env::vars_os(),
        tmp.path.as_os_str(),
        cwd.as_os_str(),
        writable,
    );
    if let Some(git) = git {
        git.set_env(&mut env);
    }
    cmd.current_dir(cwd)
        .env_clear()
        .envs(env)
        .envs(command.vars.iter().map(|(k, v)| (*k, v)))
        .stdin(if command.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // The home the wall hides is the one the command is told of.
    if let Some(home) = &wall.sandbox.home {
        cmd.env("HOME", home);
    }
    #[cfg(unix)]
    cmd.process_group(0);

    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return Err(format!("bash could not start: {e}")),
    };
    let mut group = ProcessGroup(child.id());
    // Written while the command runs; one that never reads it gets a closed pipe.
    if let (Some(bytes), Some(mut pipe)) = (command.stdin, child.stdin.take()) {
        let bytes = bytes.to_vec();
        tokio::spawn(async move {
            let _ = pipe.write_all(&bytes).await;
        });
    }
    let stdout = Arc::new(Mutex::new(Capture::new(STDOUT_CAP_BYTES)));
    let stderr = Arc::new(Mutex::new(Capture::new(STDERR_CAP_BYTES)));
    let readers = [
        child
            .stdout
            .take()
            .map(|s| tokio::spawn(capture_into(s, stdout.clone()))),
        child
            .stderr
            .take()
            .map(|s| tokio::spawn(capture_into(s, stderr.clone()))),
    ];

    let exit_code = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => exit_code_of(status),
            Err(e) => {
                notes.push(format!("[could not wait for bash: {e}]"));
                EXIT_NOT_STARTED
            }
        },
        () = tokio::time::sleep(limit) => {
            notes.push(format!(
                "[timed out after {} s; the command and everything it started were killed]",
                limit.as_secs()
            ));
            EXIT_TIMEOUT
        },
        () = ctx.cancel.cancelled() => {
            notes.push("[aborted: the run was cancelled; the command was killed]".to_owned());
            EXIT_ABORTED
        },
    };
    // Whatever is left goes now, so nothing keeps the pipes open. A command that ended took
    // its wall's namespace (or the helper's reaping) with it: kill the rest at once. One
    // that is still running is asked first, so the helper ends all it started, then killed.
    if matches!(exit_code, EXIT_TIMEOUT | EXIT_ABORTED) {
        group.stop().await;
    } else {
        group.kill_now();
    }
    let _ = child.wait().await;
    for reader in readers.into_iter().flatten() {
        let abort = reader.abort_handle();
        if tokio::time::timeout(DRAIN_GRACE, reader).await.is_err() {
            abort.abort();
        }
    }
    Ok(Ran {
        exit_code,
        notes,
        stdout,
        stderr,
    })
}

/// The workspace's run-by-others files, scanned off the async threads; `None` if the scan
/// itself failed.
/// A call nobody looked at (a rule or preset allowed it) runs git through [`GitGate`]:
/// no program a repository's configuration names that the user did not write. Its folder
/// is shown read-only behind the wall and lives as long as the value returned.
fn unattended_git(
    ctx: &ToolContext,
    before: Option<&Surfaces>,
    root: &Path,
    sandbox: &mut SandboxConfig,
) -> std::io::Result<Option<GitGate>> {
    if ctx.approved.is_some() {
        return Ok(None);
    }
    let gate = GitGate::prepare(before.filter(|b| !b.incomplete), root)?;
    sandbox.readable.push(gate.folder().to_path_buf());
    sandbox.overlays.extend(gate.overlays().iter().cloned());
    Ok(Some(gate))
}

pub(crate) async fn scan(root: &Path, extra: &[String]) -> Option<Surfaces> {
    let (root, extra) = (root.to_path_buf(), extra.to_vec());
    tokio::task::spawn_blocking(move || Surfaces::scan(&root, &extra))
        .await
        .ok()
}

fn bash_program() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "bash"
    }
}

#[cfg(unix)]
pub(crate) fn exit_code_of(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|s| 128 + s))
        .unwrap_or(1)
}

#[cfg(not(unix))]
pub(crate) fn exit_code_of(status: std::process::ExitStatus) -> i32 {
    status.code().unwrap_or(1)
}

/// Exact values to hide: the keys the host holds, and the host's secret-looking variables.
pub(crate) fn redactor_for(wall: &Wall<'_>) -> Redactor {
    let host = std::env::vars_os().filter_map(|(name, value)| {
        let (name, value) = (name.to_str()?, value.into_string().ok()?);
        (looks_secret(name) && value.len() >= MIN_HOST_SECRET_LEN).then_some(value)
    });
    Redactor::new(wall.secrets.iter().cloned().chain(host))
}
