//! A hostile project folder, through the real `paddock` binary: everything in the folder was
//! written by a stranger. Each case says how it would fail without its protection.
//!
//! Files that are not files: settings and ignore files that are FIFOs, links to `/dev/zero` or
//! huge answer within a bound. The fence: a committed `.agent-workspace` link, `.git` and
//! `.paddock` are not moved or written. Redirects: a key never follows one. Sessions are
//! private.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;
use std::time::{Duration, Instant};

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Counter, Env, Run, chat_bodies, tool_contents};

/// What "answers at once" means for a file that could block or never end.
const PROMPT: Duration = Duration::from_secs(2);

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

fn settings_file(env: &Env) -> std::path::PathBuf {
    env.project().join(".paddock/settings.json")
}

/// Replaces the settings file by `make(path)` (a FIFO, a link).
fn plant_settings(env: &Env, make: impl FnOnce(&Path)) {
    let path = settings_file(env);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&path);
    make(&path);
}

async fn timed(env: &Env, args: &[&str]) -> (Run, Duration) {
    let started = Instant::now();
    let run = env.run(args).await;
    (run, started.elapsed())
}

/// Without the regular-file check, reading a link to /dev/zero never ends (memory grows
/// until the process is killed); with it, a settings error at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_linked_to_dev_zero_are_refused_at_once() {
    let env = Env::bare();
    plant_settings(&env, |p| symlink("/dev/zero", p).unwrap());
    let (run, took) = timed(&env, &["exec", "hi"]).await;
    run.expect_code(3);
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
    assert!(took < PROMPT, "took {took:?}");
}

/// Without O_NONBLOCK, opening a FIFO waits for a writer forever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_settings_fifo_is_refused_at_once() {
    let env = Env::bare();
    plant_settings(&env, mkfifo);
    let (run, took) = timed(&env, &["exec", "hi"]).await;
    run.expect_code(3);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    assert!(took < PROMPT, "took {took:?}");
    let (run, took) = timed(&env, &["doctor"]).await;
    assert!(run.stdout.contains("not a regular file"), "{}", run.stdout);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// Without the cap, a huge file is read whole into memory.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_settings_file_is_refused() {
    let env = Env::bare();
    let text = format!("{{\"version\": 1, \"model\": \"{}\"}}", "m".repeat(2 << 20));
    env.write_settings(&text);
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(3);
    assert!(run.stderr.contains("limit"), "{}", run.stderr);
}

/// A settings link to a file elsewhere would let a repository read (and, on save, the app
/// write) a file outside the project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_linked_elsewhere_are_refused() {
    let env = Env::bare();
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("s.json");
    std::fs::write(&target, r#"{"version": 1}"#).unwrap();
    plant_settings(&env, |p| symlink(&target, p).unwrap());
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(3);
    assert!(run.stderr.contains("symlink"), "{}", run.stderr);
}

/// `Duration::from_secs(u64::MAX)` as a timer deadline overflows and panics (exit 101).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_mcp_timeout_is_a_settings_error() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(
        &server,
        json!({"mcpServers": {"x": {"command": "true", "timeoutSecs": u64::MAX}}}),
    );
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(3);
    assert!(
        run.stderr.contains("mcpServers.x.timeoutSecs"),
        "{}",
        run.stderr
    );
}

/// A run whose model calls `tool` once with `input`, then answers; returns the run and what
/// the tool returned to the model.
async fn one_call(env: &Env, server: &FakeServer, tool: &str, input: Value) -> (Run, String) {
    server.push_all([Reply::tool_call(tool, input), Reply::text("done")]);
    let run = env
        .run(&["exec", "--preset", "readwrite", "--allow", "bash", "go"])
        .await;
    let bodies = chat_bodies(server);
    let result = bodies
        .last()
        .map(tool_contents)
        .and_then(|r| r.into_iter().next())
        .unwrap_or_default();
    (run, result)
}

/// A workspace with a `.gitignore` made by `make`, and a file that would match.
async fn ignore_case(make: impl FnOnce(&Path)) -> (FakeServer, Env) {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let ws = env.workspace();
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::write(ws.join("src/a.rs"), "needle\n").unwrap();
    make(&ws);
    (server, env)
}

/// Without the check the walker opens the FIFO and blocks: the tool times out after two
/// minutes and the CLI never exits (a blocking thread holds the runtime).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gitignore_fifo_does_not_hang_grep() {
    let (server, env) = ignore_case(|ws| mkfifo(&ws.join(".gitignore"))).await;
    let started = Instant::now();
    let (run, result) = one_call(&env, &server, "grep", json!({"pattern": "needle"})).await;
    run.expect_code(0);
    assert!(
        result.contains(".gitignore is not a regular file"),
        "{result}"
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// Without the check the walker reads /dev/zero into one endless "line".
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gitignore_linked_to_dev_zero_does_not_hang_glob() {
    let (server, env) = ignore_case(|ws| symlink("/dev/zero", ws.join(".ignore")).unwrap()).await;
    let (run, result) = one_call(&env, &server, "glob", json!({"pattern": "*.rs"})).await;
    run.expect_code(0);
    assert!(result.contains(".ignore is not a regular file"), "{result}");
}

/// A bad ignore file in a subfolder: that folder is skipped and named, the rest searched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subfolder_with_a_fifo_ignore_file_is_skipped_and_named() {
    let (server, env) = ignore_case(|ws| {
        std::fs::create_dir_all(ws.join("trap")).unwrap();
        std::fs::write(ws.join("trap/b.rs"), "needle\n").unwrap();
        mkfifo(&ws.join("trap/.gitignore"));
    })
    .await;
    let (run, result) = one_call(&env, &server, "grep", json!({"pattern": "needle"})).await;
    run.expect_code(0);
    assert!(result.contains("src/a.rs:1:needle"), "{result}");
    assert!(
        result.contains("trap (its .gitignore is not a regular file)"),
        "{result}"
    );
}

/// `.git/info/exclude` is read by the walker too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_exclude_fifo_does_not_hang_grep() {
    let (server, env) = ignore_case(|ws| mkfifo(&ws.join(".git/info/exclude"))).await;
    let (run, result) = one_call(&env, &server, "grep", json!({"pattern": "needle"})).await;
    run.expect_code(0);
    assert!(result.contains(".git/info/exclude"), "{result}");
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// Without the modes, sessions are created 0644 in 0755 folders: any local user reads them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_private_and_old_ones_are_fixed() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("one"), Reply::text("two")]);
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(0);
    let id = run.session_id();
    let file = env
        .store()
        .root()
        .read_dir()
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path()
        .join(format!("{id}.jsonl"));
    assert_eq!(mode_of(&file), 0o600);
    assert_eq!(mode_of(file.parent().unwrap()), 0o700);
    assert_eq!(mode_of(env.store().root()), 0o700);
    // A session left readable by an older Paddock is narrowed when it is written again.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    env.run(&["resume", &id, "again"]).await.expect_code(0);
    assert_eq!(mode_of(&file), 0o600);
}

/// A run that writes `path` with file_write in a project whose settings add `extra`.
async fn write_attempt(extra: Value, prepare: impl FnOnce(&Env), path: &str) -> (Env, String) {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, extra);
    prepare(&env);
    let (run, result) = one_call(
        &env,
        &server,
        "file_write",
        json!({"path": path, "content": "owned"}),
    )
    .await;
    // A refused call is a failed call: the run ends normally and says so.
    assert!(run.code == 0 || run.code == 8, "{}", run.stderr);
    (env, result)
}

/// Without the link check, `.agent-workspace -> ..` makes the workspace the project's
/// parent: the write lands beside the project.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_committed_workspace_link_to_the_parent_is_refused() {
    let (env, result) = write_attempt(
        json!({}),
        |env| symlink("..", env.workspace()).unwrap(),
        "escaped.txt",
    )
    .await;
    assert!(result.contains("is a symlink"), "{result}");
    assert!(!env.project().parent().unwrap().join("escaped.txt").exists());
}

/// A link to an absolute folder elsewhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_committed_workspace_link_elsewhere_is_refused() {
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().to_path_buf();
    let (_env, result) = write_attempt(
        json!({}),
        |env| symlink(&target, env.workspace()).unwrap(),
        "x.txt",
    )
    .await;
    assert!(result.contains("is a symlink"), "{result}");
    assert!(!elsewhere.path().join("x.txt").exists());
}

/// A dangling link: creating the workspace "through" it would make its target.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dangling_workspace_link_is_not_created_through() {
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().join("made-by-paddock");
    let (_env, result) = write_attempt(
        json!({}),
        |env| symlink(&target, env.workspace()).unwrap(),
        "x.txt",
    )
    .await;
    assert!(result.contains("is a symlink"), "{result}");
    assert!(!target.exists(), "the link's target was created");
}

/// A link to `.paddock` would let file_write rewrite the settings the next run starts MCP
/// servers from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_workspace_link_to_the_settings_folder_is_refused() {
    let (env, result) = write_attempt(
        json!({}),
        |env| symlink(".paddock", env.workspace()).unwrap(),
        "settings.json",
    )
    .await;
    assert!(result.contains("is a symlink"), "{result}");
    assert!(!crate::common::read(&settings_file(&env)).contains("owned"));
}

/// In project mode, without the read-only rule the agent rewrites its own settings.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_mode_cannot_write_paddock_settings() {
    let (env, result) = write_attempt(
        json!({"workspace": "project"}),
        |_| {},
        ".paddock/settings.json",
    )
    .await;
    assert!(result.contains("read-only"), "{result}");
    assert!(!crate::common::read(&settings_file(&env)).contains("owned"));
}

/// A planted git hook runs on the user's next commit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_mode_cannot_plant_git_hooks() {
    let (env, result) = write_attempt(
        json!({"workspace": "project"}),
        |env| std::fs::create_dir_all(env.project().join(".git/hooks")).unwrap(),
        ".git/hooks/pre-commit",
    )
    .await;
    assert!(result.contains("read-only"), "{result}");
    assert!(!env.project().join(".git/hooks/pre-commit").exists());
}

/// file_edit goes through the same rule.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn project_mode_cannot_edit_git_config() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({"workspace": "project"}));
    std::fs::create_dir_all(env.project().join(".git")).unwrap();
    std::fs::write(env.project().join(".git/config"), "[core]\n").unwrap();
    let input = json!({"path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = /tmp/evil"});
    let (_run, result) = one_call(&env, &server, "file_edit", input).await;
    assert!(result.contains("read-only"), "{result}");
    assert_eq!(
        crate::common::read(&env.project().join(".git/config")),
        "[core]\n"
    );
}

/// A link inside the workspace into `.git` resolves to the protected place and is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_into_git_does_not_carry_a_write_there() {
    let (env, result) = write_attempt(
        json!({"workspace": "project"}),
        |env| {
            std::fs::create_dir_all(env.project().join(".git/hooks")).unwrap();
            symlink(".git/hooks", env.project().join("hooks")).unwrap();
        },
        "hooks/post-checkout",
    )
    .await;
    assert!(result.contains("read-only"), "{result}");
    assert!(!env.project().join(".git/hooks/post-checkout").exists());
}

/// Without `Policy::none()`, reqwest follows a 307 to the other host with `x-api-key` (it
/// strips only Authorization and cookies) and the whole conversation.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_anthropic_key_never_follows_a_redirect() {
    let server = FakeServer::start().await.unwrap();
    let elsewhere = Counter::start().await;
    server.push(Reply::redirect(
        307,
        format!("{}/v1/messages", elsewhere.url),
    ));
    let mut env = Env::new(&server, json!({"provider": "anthropic", "model": "claude"}));
    env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(4);
    assert!(run.stderr.contains("redirected"), "{}", run.stderr);
    assert!(run.stderr.contains(&elsewhere.url), "{}", run.stderr);
    assert_eq!(elsewhere.hits(), 0, "the redirect was followed");
}

/// The same for a Bearer key (reqwest would strip it, but not the conversation).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_openai_compatible_request_never_follows_a_redirect() {
    let server = FakeServer::start().await.unwrap();
    let elsewhere = Counter::start().await;
    server.push(Reply::redirect(
        308,
        format!("{}/v1/chat/completions", elsewhere.url),
    ));
    let env = Env::new(&server, json!({}));
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(4);
    assert!(run.stderr.contains("redirected"), "{}", run.stderr);
    assert_eq!(elsewhere.hits(), 0, "the redirect was followed");
}
