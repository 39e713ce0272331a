//! A long-lived program behind bash's wall (an external agent that Paddock talks to over its
//! stdin and stdout): started in the workspace with the wall's writable roots plus its own
//! home folder, a scrubbed environment plus the variables it is given, and the project's
//! network through its own listener of the proxy. Stopped, or dropped, its whole process
//! group ends.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use paddock_sandbox::{Confinement, scrubbed_env};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use crate::Wall;
use crate::capture::{Capture, capture_into};
use crate::network::CallGate;
use crate::process::{ProcessGroup, TmpDir};

/// Bytes of the program's stderr kept (head and tail), for a failure's message.
pub const PROGRAM_STDERR_CAP_BYTES: usize = 16_000;

/// What to start.
#[derive(Clone)]
pub struct ProgramSpec<'a> {
    /// The program (a path, or a name found on the wall's PATH).
    pub program: &'a OsStr,
    pub args: &'a [OsString],
    /// Its own folder, writable: `HOME` points there (its settings, caches, sessions).
    pub home: &'a Path,
    /// Set on top of the scrubbed environment (its API key, its base URL).
    pub vars: &'a [(String, String)],
    /// Names its connections in the network log.
    pub id: &'a str,
    /// Who answers its questions about hosts no rule settles (none: refused).
    pub asker: Option<crate::network::Asker>,
    /// Where its connections are shown as they happen.
    pub events: Option<Arc<dyn paddock_core::EventSink>>,
}

/// A program running behind the wall.
pub struct WalledProgram {
    child: Child,
    pub stdin: Option<ChildStdin>,
    pub stdout: Option<ChildStdout>,
    stderr: Arc<Mutex<Capture>>,
    group: ProcessGroup,
    gate: Option<CallGate>,
    _tmp: TmpDir,
    /// What the wall said about itself (a weaker engine, say).
    pub notes: Vec<String>,
    redact: paddock_sandbox::Redactor,
}

/// How it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stopped {
    /// `None` when it was still running and had to be stopped.
    pub exit_code: Option<i32>,
    /// Its stderr, redacted and cut in the middle when long.
    pub stderr: String,
    /// Its connections through the network fence, in words.
    pub connections: Option<String>,
}

/// Starts `spec` behind `env`'s wall. Refused (with the reason) when no wall can be built
/// and the user did not allow running unconfined.
pub async fn start(
    wall: &Wall<'_>,
    spec: &ProgramSpec<'_>,
    cancel: &CancellationToken,
) -> Result<WalledProgram, String> {
    let root = wall
        .guard()
        .create_root()
        .map_err(|e| format!("the workspace could not be made: {e}"))?;
    let cwd = root.real_path().to_path_buf();
    std::fs::create_dir_all(spec.home).map_err(|e| format!("{}: {e}", spec.home.display()))?;
    let home = spec
        .home
        .canonicalize()
        .map_err(|e| format!("{}: {e}", spec.home.display()))?;
    let tmp = TmpDir::for_command(wall).map_err(|e| format!("no TMPDIR: {e}"))?;
    let writable: Vec<PathBuf> = vec![cwd.clone(), home.clone(), tmp.path.clone()];
    let mut sandbox = wall.sandbox.clone();
    // What other programs run (git's metadata, .envrc...) stays read-only to it.
    // Off the async threads: a large workspace takes a while.
    if let Some(surfaces) = crate::command::scan(&cwd, &wall.sandbox.auto_run).await {
        sandbox.read_only.extend(surfaces.read_only());
    }
    let gate = match (wall.network, crate::command::through_proxy(&sandbox)) {
        (Some(fence), true) => Some(
            fence
                .open(spec.id, cancel, spec.asker.clone(), spec.events.clone())
                .map_err(|e| format!("the network fence could not be opened: {e}"))?,
        ),
        _ => None,
    };
    sandbox.proxy_socket = gate.as_ref().map(|g| g.socket.clone());
    // `sandbox.home` stays the user's: its credentials are the ones masked. The agent's
    // own home is only writable; masking the credential folders there would hide its own
    // files (Claude Code's `.claude`, its sessions) from its next start.
    // The program's own files, wherever it was installed (a home's npm prefix, a checkout in
    // /tmp): read-only, as the wall hides homes and /tmp otherwise.
    sandbox.readable.extend(program_dirs(spec));
    let confinement = Confinement::prepare(&sandbox, wall.workspace_mode, &cwd, &writable)
        .map_err(|e| e.to_string())?;
    let notes: Vec<String> = confinement.note().into_iter().collect();
    // Only the files' folders are shown inside, so a path through others (`a/../b`, a link)
    // would not resolve there: the program and its file arguments go by their real paths.
    let program = real_file(spec.program);
    let args: Vec<OsString> = spec.args.iter().map(|a| real_file(a)).collect();
    let args: Vec<&OsStr> = args.iter().map(OsString::as_os_str).collect();
    let mut cmd = confinement.command(&program, &args);
    cmd.current_dir(&cwd)
        .env_clear()
        .envs(scrubbed_env(
            std::env::vars_os(),
            tmp.path.as_os_str(),
            cwd.as_os_str(),
            &writable,
        ))
        .env("HOME", &home)
        .envs(spec.vars.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{} could not start: {e}", spec.program.to_string_lossy()))?;
    let group = ProcessGroup(child.id());
    let stderr = Arc::new(Mutex::new(Capture::new(PROGRAM_STDERR_CAP_BYTES)));
    if let Some(s) = child.stderr.take() {
        tokio::spawn(capture_into(s, stderr.clone()));
    }
    Ok(WalledProgram {
        stdin: child.stdin.take(),
        stdout: child.stdout.take(),
        child,
        stderr,
        group,
        gate,
        _tmp: tmp,
        notes,
        redact: crate::command::redactor_for(wall),
    })
}

impl WalledProgram {
    /// Its stderr so far (redacted).
    pub fn stderr(&self) -> String {
        self.stderr
            .lock()
            .map(|c| c.render(&self.redact))
            .unwrap_or_default()
    }

    /// Its exit code, if it has exited.
    pub fn exited(&mut self) -> Option<i32> {
        self.child
            .try_wait()
            .ok()
            .flatten()
            .map(crate::command::exit_code_of)
    }

    /// Waits for it to exit (its stdin closed, say), at most `grace`, then stops it and
    /// everything it started.
    pub async fn stop(mut self, grace: std::time::Duration) -> Stopped {
        drop(self.stdin.take());
        let exit_code = match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(Ok(status)) => Some(crate::command::exit_code_of(status)),
            _ => None,
        };
        self.group.stop().await;
        let _ = self.child.wait().await;
        let connections = match self.gate.take() {
            Some(gate) => crate::network::describe(&gate.finish().await),
            None => None,
        };
        Stopped {
            exit_code,
            stderr: self.stderr(),
            connections,
        }
    }
}

/// `path` resolved (links, `..`) when it is an absolute path to an existing file; as given
/// otherwise (a name on PATH, a flag).
fn real_file(path: &OsStr) -> OsString {
    let p = Path::new(path);
    match std::fs::canonicalize(p) {
        Ok(real) if p.is_absolute() && real.is_file() => real.into_os_string(),
        _ => path.to_os_string(),
    }
}

/// The folders the program's files are in: the program (found on PATH) and any argument
/// naming an existing file, each taken up to the folder above its outermost `node_modules`
/// (a package needs its dependencies), else its own folder. The wall refuses any that would
/// show a whole home or Paddock's data.
fn program_dirs(spec: &ProgramSpec<'_>) -> Vec<PathBuf> {
    let program = Path::new(spec.program);
    let found = if program.components().count() > 1 {
        Some(program.to_path_buf())
    } else {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        })
    };
    let files = found.into_iter().chain(
        spec.args
            .iter()
            .map(PathBuf::from)
            .filter(|p| p.is_absolute()),
    );
    let mut dirs: Vec<PathBuf> = files
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter(|p| p.is_file())
        .filter_map(|file| {
            let packages = file
                .ancestors()
                .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
                .last()
                .and_then(Path::parent);
            packages.or_else(|| file.parent()).map(Path::to_path_buf)
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_programs_files_are_its_package_tree_or_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let script = root.join("tools/agent.mjs");
        let packaged = root.join("prefix/lib/node_modules/@x/agent/dist/index.js");
        for f in [&script, &packaged] {
            std::fs::create_dir_all(f.parent().unwrap()).unwrap();
            std::fs::write(f, "").unwrap();
        }
        let args = [
            script.clone().into_os_string(),
            packaged.into_os_string(),
            "--flag".into(),
            root.join("missing.js").into_os_string(),
        ];
        let home = root.join("home");
        let spec = ProgramSpec {
            program: OsStr::new("node"),
            args: &args,
            home: &home,
            vars: &[],
            id: "t",
            asker: None,
            events: None,
        };
        let dirs = program_dirs(&spec);
        assert!(dirs.contains(&root.join("tools")), "{dirs:?}");
        assert!(dirs.contains(&root.join("prefix/lib")), "{dirs:?}");
        assert!(!dirs.iter().any(|d| d.starts_with(root.join("missing.js"))));
    }

    #[test]
    fn a_file_goes_in_by_its_real_path_and_anything_else_as_given() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let real = root.join("pkg/bin/node");
        std::fs::create_dir_all(real.parent().unwrap()).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        std::fs::write(&real, "").unwrap();
        std::os::unix::fs::symlink(&real, root.join("pkg/link")).unwrap();
        // Inside the wall only pkg/bin is shown: neither `other/..` nor the link resolves.
        let through = root.join("other/../pkg/bin/node");
        assert_eq!(real_file(through.as_os_str()), real.as_os_str());
        assert_eq!(
            real_file(root.join("pkg/link").as_os_str()),
            real.as_os_str()
        );
        for given in ["node", "--flag", "/no/such/file", "relative/../x"] {
            assert_eq!(real_file(OsStr::new(given)), OsStr::new(given));
        }
        assert_eq!(
            real_file(root.join("pkg").as_os_str()),
            root.join("pkg").as_os_str()
        );
    }
}
