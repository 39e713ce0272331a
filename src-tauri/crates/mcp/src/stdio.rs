//! Launching a stdio server: our own child process (not rmcp's), so we own its exit status,
//! its stderr and its whole process group.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::Arc;
use std::time::Duration;

use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio_util::sync::CancellationToken;

use crate::lifeline::Lifeline;
use crate::start_error::StartError;
use crate::stderr::StderrLog;

/// What to launch, from the settings plus the host's options.
pub struct Launch<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// PATH for the server (the login shell's, for GUI starts); the settings' `env` wins.
    pub path: Option<&'a str>,
    /// Inherited variables the server must not see; the settings' `env` may still set them.
    pub hide_env: &'a [String],
}

pub struct Spawned {
    pub stdout: ChildStdout,
    pub stdin: ChildStdin,
    pub child: ChildGuard,
}

/// Kills the server's process group when dropped; its watcher task reports the exit.
pub struct ChildGuard {
    pid: Option<u32>,
    /// Cancelled once the process has exited and been reaped.
    exited: CancellationToken,
    /// Cancel to have the watcher kill and reap the process.
    stop: CancellationToken,
}

impl ChildGuard {
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Asks the watcher to kill the process (async path; works after `stop` was dropped).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Kills the whole process group now, from any thread, runtime or not.
    pub fn kill_now(&self) {
        if !self.exited.is_cancelled() {
            kill_group(self.pid);
        }
        self.stop.cancel();
    }

    /// True if the process exited within `limit`.
    pub async fn wait_exit(&self, limit: Duration) -> bool {
        tokio::time::timeout(limit, self.exited.cancelled())
            .await
            .is_ok()
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        self.kill_now();
    }
}

/// Starts the process and its watcher. The server inherits Paddock's environment (it runs
/// as the user, unsandboxed, like any program the user launches) minus `hide_env`, plus
/// the settings' `env`.
pub fn spawn(
    launch: &Launch<'_>,
    lifeline: Arc<Lifeline>,
    stderr: &StderrLog,
) -> Result<Spawned, StartError> {
    if let Some(dir) = &launch.cwd
        && !dir.is_dir()
    {
        return Err(StartError::Launch(format!(
            "the working directory {} does not exist",
            dir.display()
        )));
    }
    let mut cmd = Command::new(launch.command);
    cmd.args(launch.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    for name in launch.hide_env {
        cmd.env_remove(name);
    }
    if let Some(path) = launch.path {
        cmd.env("PATH", path);
    }
    cmd.envs(launch.env);
    if let Some(dir) = &launch.cwd {
        cmd.current_dir(dir);
    }
    // Its own group, so that killing it also ends what it started (npx -> node).
    #[cfg(unix)]
    cmd.process_group(0);

    let mut child = cmd
        .spawn()
        .map_err(|e| StartError::Launch(spawn_error(launch.command, launch.path, &e)))?;
    let (Some(stdin), Some(stdout), Some(stderr_pipe)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(StartError::Launch(
            "the server's stdio pipes could not be opened".to_owned(),
        ));
    };
    tokio::spawn(stderr.clone().capture(stderr_pipe));

    let guard = ChildGuard {
        pid: child.id(),
        exited: CancellationToken::new(),
        stop: CancellationToken::new(),
    };
    let (pid, exited, stop) = (guard.pid, guard.exited.clone(), guard.stop.clone());
    tokio::spawn(async move {
        let status = tokio::select! {
            status = child.wait() => status,
            () = stop.cancelled() => {
                let _ = child.start_kill();
                child.wait().await
            }
        };
        // Whatever the server left running in its group goes with it.
        kill_group(pid);
        exited.cancel();
        lifeline.end(match status {
            Ok(s) => describe_exit(s),
            Err(e) => format!("the server process could not be watched: {e}"),
        });
    });
    Ok(Spawned {
        stdout,
        stdin,
        child: guard,
    })
}

fn spawn_error(command: &str, path: Option<&str>, e: &std::io::Error) -> String {
    match e.kind() {
        ErrorKind::NotFound if !command.contains('/') => {
            let path = path
                .map(str::to_owned)
                .or_else(|| std::env::var("PATH").ok())
                .unwrap_or_default();
            format!("command `{command}` was not found (PATH: {path})")
        }
        ErrorKind::NotFound => format!("command `{command}` does not exist"),
        ErrorKind::PermissionDenied => format!("command `{command}` is not executable"),
        _ => format!("command `{command}` could not be started: {e}"),
    }
}

/// "exited with code 1", "was killed by signal 9 (SIGKILL)".
pub fn describe_exit(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            let name = match sig {
                1 => " (SIGHUP)",
                2 => " (SIGINT)",
                6 => " (SIGABRT)",
                9 => " (SIGKILL)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            return format!("the server process was killed by signal {sig}{name}");
        }
    }
    match status.code() {
        Some(code) => format!("the server process exited with code {code}"),
        None => "the server process exited".to_owned(),
    }
}

/// The working directory: the settings' `cwd` (relative to `base`), else `base`.
pub fn resolve_cwd(cwd: Option<&str>, base: Option<&Path>) -> Option<PathBuf> {
    match (cwd, base) {
        (Some(c), Some(b)) => Some(b.join(c)),
        (Some(c), None) => Some(PathBuf::from(c)),
        (None, b) => b.map(Path::to_path_buf),
    }
}

#[cfg(unix)]
fn kill_group(pid: Option<u32>) {
    let pid = pid
        .and_then(|p| i32::try_from(p).ok())
        .and_then(rustix::process::Pid::from_raw);
    if let Some(pid) = pid {
        // ESRCH (already gone) is the common, fine case.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: Option<u32>) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_cwd_is_taken_from_the_project() {
        let base = Path::new("/p");
        assert_eq!(
            resolve_cwd(Some("tools"), Some(base)),
            Some(PathBuf::from("/p/tools"))
        );
        assert_eq!(
            resolve_cwd(Some("/abs"), Some(base)),
            Some(PathBuf::from("/abs"))
        );
        assert_eq!(resolve_cwd(None, Some(base)), Some(PathBuf::from("/p")));
        assert_eq!(resolve_cwd(None, None), None);
    }

    #[test]
    fn a_missing_command_names_the_path_searched() {
        let e = std::io::Error::from(ErrorKind::NotFound);
        assert_eq!(
            spawn_error("nope", Some("/x:/y"), &e),
            "command `nope` was not found (PATH: /x:/y)"
        );
        assert_eq!(
            spawn_error("./nope", None, &e),
            "command `./nope` does not exist"
        );
    }
}
