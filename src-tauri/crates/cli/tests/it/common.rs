//! Shared by the CLI tests: a project folder pointed at an in-process fake model server, a
//! private data directory and HOME, and helpers to run `paddock` and read what it wrote.

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use paddock_fake_model::FakeServer;
use paddock_protocol::{AgentEvent, ContentBlock, Message};
use paddock_session::{LoadedSession, SessionStore};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::process::{Child, Command};

pub const PADDOCK: &str = env!("CARGO_BIN_EXE_paddock");
/// The longest any single CLI run may take in a test before it counts as hung.
pub const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Variables of the test's own environment that must not leak into a run.
const SCRUBBED: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "OPENAI_API_KEY",
    "PADDOCK_OPENAI_COMPAT_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "PADDOCK_OPENAI_COMPAT_BASE_URL",
    "PADDOCK_LOG",
    "PADDOCK_CONFIG_DIR",
    "RUST_BACKTRACE",
];

/// A project, a data directory and a HOME, all temporary.
pub struct Env {
    project: TempDir,
    data: TempDir,
    home: TempDir,
    extra_env: Vec<(String, String)>,
}

impl Env {
    /// A project whose settings point at `server` with model `fake-model`, plus `extra`
    /// settings fields.
    pub fn new(server: &FakeServer, extra: Value) -> Self {
        let env = Self::bare();
        env.write_settings(&settings_text(server, extra));
        env
    }

    /// As [`Env::new`], with the project, data and HOME folders made inside `base` (a
    /// place the wall does not empty, as `/opt` or `/data`, or a home).
    pub fn new_in(server: &FakeServer, extra: Value, base: &Path) -> Self {
        std::fs::create_dir_all(base).expect("base dir");
        let env = Self {
            project: tempfile::tempdir_in(base).expect("project dir"),
            data: tempfile::tempdir_in(base).expect("data dir"),
            home: tempfile::tempdir_in(base).expect("home dir"),
            extra_env: Vec::new(),
        };
        env.write_settings(&settings_text(server, extra));
        env
    }

    /// Paddock's data folder of the runs.
    pub fn data_dir(&self) -> PathBuf {
        std::fs::canonicalize(self.data.path()).expect("data path")
    }

    /// A project without settings.
    pub fn bare() -> Self {
        Self {
            project: tempfile::tempdir().expect("project dir"),
            data: tempfile::tempdir().expect("data dir"),
            home: tempfile::tempdir().expect("home dir"),
            extra_env: Vec::new(),
        }
    }

    /// Sets a variable for every run of this environment.
    pub fn set_env(&mut self, name: &str, value: &str) {
        self.extra_env.push((name.to_owned(), value.to_owned()));
    }

    /// Writes the settings and trusts them, as the user of a folder they wrote would.
    pub fn write_settings(&self, text: &str) {
        self.write_untrusted_settings(text);
        if let Ok(settings) = paddock_host::settings::parse(text, Path::new("settings.json")) {
            self.trust_store()
                .trust(&self.project(), &settings)
                .expect("trust recorded");
        }
    }

    /// Writes the settings as a cloned repository would: nobody trusted them.
    pub fn write_untrusted_settings(&self, text: &str) {
        let dir = self.project.path().join(".paddock");
        std::fs::create_dir_all(&dir).expect("settings dir");
        std::fs::write(dir.join("settings.json"), text).expect("settings file");
    }

    /// The trust record the runs of this environment use.
    pub fn trust_store(&self) -> paddock_host::trust::TrustStore {
        paddock_host::trust::TrustStore::new(self.config_dir().join("trust.json"))
    }

    /// The runs' HOME.
    pub fn home(&self) -> PathBuf {
        std::fs::canonicalize(self.home.path()).expect("home path")
    }

    pub fn config_dir(&self) -> PathBuf {
        self.home.path().join("config/paddock")
    }

    /// The project folder, symlinks resolved (as sessions record it).
    pub fn project(&self) -> PathBuf {
        std::fs::canonicalize(self.project.path()).expect("project path")
    }

    pub fn workspace(&self) -> PathBuf {
        self.project().join(".agent-workspace")
    }

    pub fn store(&self) -> SessionStore {
        SessionStore::new(self.data.path().join("sessions"))
    }

    pub fn load(&self, id: &str) -> LoadedSession {
        self.store()
            .load(&self.project(), id)
            .expect("session loads")
    }

    /// `paddock ARGS` in the project folder, with this environment only.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = self.program(PADDOCK);
        cmd.args(args);
        cmd
    }

    /// `program` in the project folder with this environment only (a client that starts
    /// `paddock` itself passes it on).
    pub fn program(&self, program: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.project.path())
            .env("PADDOCK_DATA_DIR", self.data.path())
            .env("HOME", self.home.path())
            .env("XDG_DATA_HOME", self.home.path().join("data"))
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("PADDOCK_CONFIG_DIR", self.config_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for name in SCRUBBED {
            cmd.env_remove(name);
        }
        for (k, v) in &self.extra_env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs `paddock ARGS` to the end.
    pub async fn run(&self, args: &[&str]) -> Run {
        let out = tokio::time::timeout(RUN_LIMIT, self.command(args).output())
            .await
            .expect("paddock finished in time")
            .expect("paddock started");
        Run::from(out)
    }

    /// Runs `paddock ARGS` with `input` on stdin.
    pub async fn run_with_stdin(&self, args: &[&str], input: &str) -> Run {
        use tokio::io::AsyncWriteExt;
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .spawn()
            .expect("paddock started");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin
            .write_all(input.as_bytes())
            .await
            .expect("prompt written");
        drop(stdin);
        let out = tokio::time::timeout(RUN_LIMIT, child.wait_with_output())
            .await
            .expect("paddock finished in time")
            .expect("paddock ran");
        Run::from(out)
    }

    pub fn spawn(&self, args: &[&str]) -> Child {
        self.command(args).spawn().expect("paddock started")
    }
}

/// Settings pointing at `server` with model `fake-model`, plus `extra` fields.
pub fn settings_text(server: &FakeServer, extra: Value) -> String {
    let mut settings = json!({
        "version": 1,
        "provider": "openai-compatible",
        "baseUrl": server.url(),
        "model": "fake-model",
    });
    if let (Some(s), Some(extra)) = (settings.as_object_mut(), extra.as_object()) {
        s.extend(extra.clone());
    }
    serde_json::to_string_pretty(&settings).unwrap_or_default()
}

/// What one finished `paddock` run left.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Self {
        Self {
            // Killed by a signal counts as -1; no test expects that.
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

impl Run {
    /// Asserts the exit code, showing both streams when it is wrong.
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code\n--- stdout\n{}\n--- stderr\n{}",
            self.stdout, self.stderr
        );
        self
    }

    /// The session id from the closing "paddock: session ID" line on stderr.
    pub fn session_id(&self) -> String {
        self.stderr
            .lines()
            .find_map(|l| l.strip_prefix("paddock: session "))
            .and_then(|rest| rest.split_whitespace().next())
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no session line on stderr:\n{}", self.stderr))
    }

    /// `--json` output split into the CLI's own records and the agent's events.
    pub fn json(&self) -> JsonRun {
        parse_json_lines(&self.stdout)
    }
}

/// A `--json` run read back.
#[derive(Debug)]
pub struct JsonRun {
    pub session: Value,
    pub events: Vec<AgentEvent>,
    pub exit: Value,
}

pub fn parse_json_lines(stdout: &str) -> JsonRun {
    let mut session = Value::Null;
    let mut exit = Value::Null;
    let mut events = Vec::new();
    for line in stdout.lines() {
        let value: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
        match value["type"].as_str() {
            Some("session") => session = value,
            Some("exit") => exit = value,
            // The CLI's own records (the whole answer, a worktree made), not agent events.
            Some("message" | "worktree" | "worktree_setup") => {}
            _ => events.push(
                serde_json::from_value(value)
                    .unwrap_or_else(|e| panic!("not an AgentEvent ({e}): {line}")),
            ),
        }
    }
    JsonRun {
        session,
        events,
        exit,
    }
}

/// Reads a running `--json` child's stdout until `stop` says so; returns the lines read.
pub async fn read_until(
    lines: &mut tokio::io::Lines<tokio::io::BufReader<tokio::process::ChildStdout>>,
    mut stop: impl FnMut(&Value) -> bool,
) -> Vec<Value> {
    let mut seen = Vec::new();
    let read = async {
        while let Some(line) = lines.next_line().await.expect("stdout readable") {
            let value: Value = serde_json::from_str(&line).expect("a JSON line");
            let done = stop(&value);
            seen.push(value);
            if done {
                return true;
            }
        }
        false
    };
    let found = tokio::time::timeout(RUN_LIMIT, read)
        .await
        .expect("the expected line came in time");
    assert!(found, "stdout ended first; read: {seen:#?}");
    seen
}

/// Every tool call in `messages` has its result, and every result its call.
pub fn assert_paired(messages: &[Message]) {
    let mut open: Vec<String> = Vec::new();
    for m in messages {
        for block in &m.content {
            match block {
                ContentBlock::ToolCall(c) => open.push(c.id.clone()),
                ContentBlock::ToolResult(r) => {
                    let at = open.iter().position(|id| *id == r.tool_call_id);
                    assert!(at.is_some(), "result without a call: {r:?}");
                    open.retain(|id| *id != r.tool_call_id);
                }
                _ => {}
            }
        }
        if m.role == paddock_protocol::Role::User {
            assert!(open.is_empty(), "calls without results: {open:?}");
        }
    }
    assert!(
        open.is_empty(),
        "calls without results at the end: {open:?}"
    );
}

/// In a Chat Completions request body: every assistant tool call is answered by a `tool`
/// message before the next assistant or user message.
pub fn assert_wire_paired(body: &Value) {
    let messages = body["messages"].as_array().expect("messages");
    let mut open: Vec<String> = Vec::new();
    for m in messages {
        match m["role"].as_str() {
            Some("assistant") => {
                assert!(open.is_empty(), "unanswered calls {open:?} in {body:#}");
                for c in m["tool_calls"].as_array().into_iter().flatten() {
                    open.push(c["id"].as_str().unwrap_or_default().to_owned());
                }
            }
            Some("tool") => {
                let id = m["tool_call_id"].as_str().unwrap_or_default();
                assert!(
                    open.iter().any(|o| o == id),
                    "a tool message for no call: {m}"
                );
                open.retain(|o| o != id);
            }
            Some("user") => assert!(open.is_empty(), "unanswered calls {open:?} in {body:#}"),
            _ => {}
        }
    }
    assert!(open.is_empty(), "unanswered calls {open:?} in {body:#}");
}

/// The chat requests the server got (model listings left out).
pub fn chat_bodies(server: &FakeServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("chat/completions"))
        .map(|r| r.body)
        .collect()
}

/// The `content` of `tool` messages in a Chat Completions body.
pub fn tool_contents(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "tool")
        .filter_map(|m| m["content"].as_str().map(str::to_owned))
        .collect()
}

/// A free 127.0.0.1 port with nothing listening on it.
pub fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("addr").port()
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A listener that counts the connections it gets.
pub struct Counter {
    pub url: String,
    hits: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Counter {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let hits = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = hits.clone();
        tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(socket);
            }
        });
        Self { url, hits }
    }

    pub fn hits(&self) -> usize {
        self.hits.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `tests/<folder>/<file>` when node and that npm fixture are installed (setup runs `npm ci`
/// there); `None` with a note when not, a failure when `<require>=1` (CI).
pub fn npm_fixture(folder: &str, file: &str, what: &str, require: &str) -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(3)?;
    let fixtures = root.join("tests").join(folder);
    let path = fixtures.join(file);
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if path.is_file() && node {
        return Some(path);
    }
    let why = format!(
        "needs node and {what} (npm ci --prefix {})",
        fixtures.display()
    );
    assert!(
        std::env::var(require).as_deref() != Ok("1"),
        "{require}=1 but this test {why}"
    );
    eprintln!("SKIPPED: this test {why}");
    None
}

/// `git ARGS` in `dir` (a fixed author), its output; a failure fails the test.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=T", "-c", "user.email=t@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// The session a run named on stderr (`session ID`), and its recorded events.
pub fn session_events(env: &Env, stderr: &str) -> (String, Vec<paddock_protocol::AgentEvent>) {
    let id = stderr
        .split("session ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("no session in: {stderr}"))
        .to_owned();
    let events = env.load(&id).events;
    (id, events)
}
