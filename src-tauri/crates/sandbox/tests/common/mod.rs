//! What the tests of walls that outlive their Paddock share: walls built as the bash tool
//! builds them, and finding every process of one by its tag.
#![allow(dead_code)]

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use paddock_protocol::{SandboxEngine, WorkspaceMode};
use paddock_sandbox::{Confinement, Engine, SandboxConfig, scrubbed_env};

/// Set on a walled command by a test: everything the wall starts inherits it.
pub const TAG_ENV: &str = "PADDOCK_TEST_WALL_TAG";

/// The engines, by the names the tests print.
pub const ENGINES: [(&str, Engine); 3] = [
    ("bubblewrap", Engine::Bubblewrap),
    ("namespaces", Engine::Namespaces),
    ("landlock", Engine::Landlock),
];

/// A wall for `engine` around a fresh workspace, as the bash tool builds it; `Err` says why
/// this host cannot give that engine.
pub struct Wall {
    pub confinement: Confinement,
    pub ws: PathBuf,
    pub tmp: PathBuf,
}

impl Wall {
    /// The workspace a wall named `name` works in.
    pub fn workspace(name: &str) -> PathBuf {
        Self::base(name).join("ws")
    }

    fn base(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("outlive-{name}"))
    }

    pub fn prepare(engine: Engine, name: &str) -> Result<Self, String> {
        let base = Self::base(name);
        let (ws, tmp) = (base.join("ws"), base.join("tmp"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        let config = SandboxConfig {
            strongest: Some(engine),
            ..SandboxConfig::default()
        };
        let confinement = Confinement::prepare(
            &config,
            WorkspaceMode::Project,
            &ws,
            &[ws.clone(), tmp.clone()],
        )
        .map_err(|e| e.to_string())?;
        let wanted = matches!(
            (&confinement.status.engine, engine),
            (SandboxEngine::Bubblewrap { .. }, Engine::Bubblewrap)
                | (SandboxEngine::Namespaces, Engine::Namespaces)
                | (SandboxEngine::Landlock { .. }, Engine::Landlock)
        );
        if !wanted {
            return Err(confinement.status.summary.clone());
        }
        Ok(Self {
            confinement,
            ws: ws.canonicalize().unwrap(),
            tmp: tmp.canonicalize().unwrap(),
        })
    }

    /// `bash -c line` behind the wall, tagged, set up as the bash tool does it (scrubbed
    /// environment, its own process group, piped output).
    pub fn bash(&self, line: &str, tag: &str) -> tokio::process::Command {
        let mut cmd = self
            .confinement
            .command(OsStr::new("/bin/bash"), &["-c".as_ref(), OsStr::new(line)]);
        let writable = [self.ws.clone(), self.tmp.clone()];
        cmd.current_dir(&self.ws)
            .env_clear()
            .envs(scrubbed_env(
                std::env::vars_os(),
                self.tmp.as_os_str(),
                self.ws.as_os_str(),
                &writable,
            ))
            .env(TAG_ENV, tag)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .process_group(0);
        cmd
    }
}

impl Wall {
    /// The command line for `bash -c line` behind the wall.
    pub fn argv(&self, line: &str) -> Vec<OsString> {
        self.confinement
            .argv(OsStr::new("/bin/bash"), &["-c".as_ref(), OsStr::new(line)])
    }

    /// `argv` set up as [`Self::bash`] does it, waited for synchronously; output dropped.
    pub fn std_command(&self, argv: &[OsString], tag: &str) -> std::process::Command {
        let mut cmd = std::process::Command::new(&argv[0]);
        let writable = [self.ws.clone(), self.tmp.clone()];
        cmd.args(&argv[1..])
            .current_dir(&self.ws)
            .env_clear()
            .envs(scrubbed_env(
                std::env::vars_os(),
                self.tmp.as_os_str(),
                self.ws.as_os_str(),
                &writable,
            ))
            .env(TAG_ENV, tag)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0);
        cmd
    }
}

/// Whether a missing engine fails the test instead of skipping it (bubblewrap only).
pub fn required(engine: &str) -> bool {
    engine == "bubblewrap" && std::env::var("PADDOCK_REQUIRE_SANDBOX").as_deref() == Ok("1")
}

/// `pid: command line` of every process carrying `tag`: in its environment, or written
/// into its command line as `TAG-<tag>` (for what clears its environment).
pub fn tagged(tag: &str) -> Vec<String> {
    let env_mark = format!("{TAG_ENV}={tag}");
    let line_mark = format!("TAG-{tag}");
    let me = std::process::id();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let read = |what: &str| std::fs::read(entry.path().join(what)).unwrap_or_default();
        let (cmdline, environ) = (read("cmdline"), read("environ"));
        let in_env = environ.split(|b| *b == 0).any(|e| e == env_mark.as_bytes());
        let in_line = cmdline
            .windows(line_mark.len())
            .any(|w| w == line_mark.as_bytes());
        if in_env || in_line {
            let shown: String = String::from_utf8_lossy(&cmdline)
                .replace('\0', " ")
                .chars()
                .take(70)
                .collect();
            found.push(format!("{pid}: {shown}"));
        }
    }
    found
}

/// Waits until nothing carries `tag` (two looks in a row, a look is not atomic); else kills
/// what is left and returns it.
pub fn gone_within(tag: &str, grace: Duration) -> Result<(), Vec<String>> {
    let started = Instant::now();
    let mut empty_looks = 0;
    while empty_looks < 2 {
        if started.elapsed() > grace {
            let left = tagged(tag);
            kill_tagged(tag);
            return Err(left);
        }
        std::thread::sleep(Duration::from_millis(20));
        empty_looks = if tagged(tag).is_empty() {
            empty_looks + 1
        } else {
            0
        };
    }
    Ok(())
}

/// Waits until something carries `tag` and its command line contains `what`.
pub fn wait_for(tag: &str, what: &str, limit: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if tagged(tag).iter().any(|p| p.contains(what)) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

/// Cleans up after a failed check.
pub fn kill_tagged(tag: &str) {
    for _ in 0..50 {
        let left = tagged(tag);
        if left.is_empty() {
            return;
        }
        for p in left {
            if let Some(pid) = p.split(':').next().and_then(|p| p.parse::<i32>().ok())
                && let Some(pid) = rustix::process::Pid::from_raw(pid)
            {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Delays that differ from run to run; the seed is printed.
pub struct XorShift(pub u64);

impl XorShift {
    pub fn from_env(var: &str) -> Self {
        let seed = std::env::var(var)
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
                    | 1
            });
        eprintln!("seed {seed} ({var})");
        Self(seed)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}
