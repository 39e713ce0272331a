//! bash: layout and exit codes, the timeout killing background grandchildren, cancel,
//! redaction, and the OS sandbox (writes outside the workspace, network) on this machine.
//! Where a facility is missing the test checks that bash is refused instead, which is what
//! the default settings promise.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::tools_support::{Seen, call, call_with, context, env_at};
use paddock_protocol::{FsConfinement, NetworkConfinement};
use paddock_tools::ToolEnv;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir(&ws).unwrap();
    (dir, ws)
}

async fn bash(env: &ToolEnv, command: &str) -> Seen {
    call(env, "bash", json!({"command": command})).await
}

fn alive(pid: i32) -> bool {
    // A zombie still answers kill(0); look at its state instead.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

async fn wait_dead(pid: i32) -> bool {
    for _ in 0..50 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Whether this machine gives bash the full default sandbox.
fn confined(env: &ToolEnv) -> bool {
    env.sandbox_status().fully_confined
}

#[tokio::test]
async fn stdout_then_stderr_then_exit_code() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        let seen = bash(&env, "echo hi").await;
        assert!(
            seen.is_error && seen.text.contains("bash is disabled"),
            "{}",
            seen.text
        );
        return;
    }
    let seen = bash(&env, "echo out; echo err >&2; exit 3").await;
    assert!(seen.is_error);
    assert_eq!(seen.text, "out\n--- stderr ---\nerr\n[exit code: 3]");
    let seen = bash(&env, "pwd").await;
    assert!(!seen.is_error);
    assert_eq!(seen.text, format!("{}\n[exit code: 0]", ws.display()));
    let seen = bash(&env, "true").await;
    assert_eq!(seen.text, "(no output)\n[exit code: 0]");
    let seen = bash(&env, "no_such_command_paddock").await;
    assert!(seen.text.ends_with("[exit code: 127]"), "{}", seen.text);
}

#[tokio::test]
async fn could_not_start_is_127() {
    let dir = tempfile::tempdir().unwrap();
    // A workspace root that is a file cannot be a working directory.
    let root = dir.path().join("not-a-folder");
    std::fs::write(&root, "x").unwrap();
    let env = env_at(&root);
    let seen = bash(&env, "echo hi").await;
    assert!(seen.is_error);
    assert!(seen.text.ends_with("[exit code: 127]"), "{}", seen.text);
}

#[tokio::test]
async fn a_missing_workspace_is_created_like_file_write_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project").join(".agent-workspace");
    let env = env_at(&root);
    let seen = bash(&env, "pwd").await;
    assert!(root.is_dir());
    if confined(&env) || !seen.is_error {
        assert_eq!(seen.text, format!("{}\n[exit code: 0]", root.display()));
    }
}

#[tokio::test]
async fn timeout_kills_the_group_including_background_grandchildren() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return assert!(bash(&env, "true").await.text.contains("bash is disabled"));
    }
    let started = Instant::now();
    let seen = call(
        &env,
        "bash",
        json!({"command": "sleep 100 & echo $! > bg.pid; sleep 100", "timeout_secs": 1}),
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert!(seen.is_error);
    assert!(seen.text.contains("timed out after 1 s"), "{}", seen.text);
    assert!(seen.text.ends_with("[exit code: 124]"), "{}", seen.text);
    let pid: i32 = std::fs::read_to_string(ws.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_dead(pid).await,
        "background sleep {pid} survived the timeout"
    );
}

#[tokio::test]
async fn background_jobs_do_not_hold_the_call_and_are_stopped() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return;
    }
    let started = Instant::now();
    let seen = bash(&env, "sleep 100 & echo $!").await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!seen.is_error, "{}", seen.text);
    let pid: i32 = seen.text.lines().next().unwrap().trim().parse().unwrap();
    assert!(wait_dead(pid).await, "background sleep {pid} survived");
}

/// The executor drops a call on its own timeout or on cancel: dropping must kill the group.
#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return;
    }
    let kit = context(env, CancellationToken::new());
    let tool = kit.registry.get("bash").unwrap().clone();
    let input = json!({"command": "sleep 100 & echo $! > bg.pid; sleep 100"});
    let call = tool.call(input, &kit.ctx);
    assert!(
        tokio::time::timeout(Duration::from_millis(1000), call)
            .await
            .is_err()
    );
    let pid: i32 = std::fs::read_to_string(ws.join("bg.pid"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_dead(pid).await,
        "background sleep {pid} outlived the dropped call"
    );
}

#[tokio::test]
async fn cancel_is_130() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return;
    }
    let cancel = CancellationToken::new();
    let ctx = context(env, cancel.clone());
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        trigger.cancel();
    });
    let started = Instant::now();
    let seen = call_with(&ctx, "bash", json!({"command": "sleep 30"})).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(seen.text.ends_with("[exit code: 130]"), "{}", seen.text);
}

#[tokio::test]
async fn secrets_are_redacted() {
    let (_d, ws) = workspace();
    let mut env = env_at(&ws);
    env.secrets = vec!["held-provider-key-123".to_owned()];
    if !confined(&env) {
        return;
    }
    let script = r#"
echo "openai sk-proj-abcdefghijklmnopqrstuvwx"
echo "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload"
echo "curl -H 'x: y' bearer abc.def.ghi"
printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n'
echo "gh ghp_abcdefghijklmnopqrstuvwxyz0123456789 pat github_pat_11AAAAAAA0abcdefghijklmnop"
echo "aws AKIAIOSFODNN7EXAMPLE slack xoxb-123456789012-abcdefghij"
echo "DB_PASSWORD=hunter2 api_key: zxcvbnm"
echo "held held-provider-key-123" >&2
"#;
    let seen = bash(&env, script).await;
    assert!(!seen.is_error, "{}", seen.text);
    for leaked in [
        "abcdefghijklmnopqrstuvwx",
        "eyJhbGciOiJIUzI1NiJ9",
        "abc.def.ghi",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmU",
        "ghp_abcdef",
        "github_pat_11",
        "AKIAIOSFODNN7EXAMPLE",
        "xoxb-1234",
        "hunter2",
        "zxcvbnm",
        "held-provider-key-123",
    ] {
        assert!(
            !seen.text.contains(leaked),
            "{leaked} leaked:\n{}",
            seen.text
        );
    }
    assert!(seen.text.contains("[REDACTED PRIVATE KEY]"));
    assert!(seen.text.contains("DB_PASSWORD=[REDACTED]"));
    assert!(seen.text.contains("--- stderr ---\nheld [REDACTED]"));
}

#[tokio::test]
async fn writes_outside_the_workspace_fail_under_confinement() {
    let (dir, ws) = workspace();
    let outside = dir.path().canonicalize().unwrap().join("outside");
    std::fs::create_dir(&outside).unwrap();
    let env = env_at(&ws);
    let status = env.sandbox_status();
    eprintln!("sandbox status: {status:#?}");
    let target = outside.join("escaped.txt");
    let command = format!(
        "echo in > inside.txt && echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && \
         echo out > {} ; echo rc=$?",
        target.display()
    );
    let seen = bash(&env, &command).await;
    eprintln!("confined write: {}", seen.text);
    match status.filesystem {
        FsConfinement::Landlock { abi } => {
            assert!(abi >= 1);
            assert!(!seen.is_error, "{}", seen.text);
            assert!(seen.text.starts_with("tmp\nrc=1\n"), "{}", seen.text);
            assert!(seen.text.contains("Permission denied"), "{}", seen.text);
            assert!(!target.exists(), "the write outside went through");
            assert!(ws.join("inside.txt").exists());
            assert_eq!(status.writable_roots.len(), 2);
        }
        _ => {
            assert!(seen.text.contains("bash is disabled"), "{}", seen.text);
            assert!(!target.exists());
        }
    }
    // The same command with the sandbox turned off does write outside: the check above is
    // the sandbox's doing, not the command's.
    let mut off = env.clone();
    off.sandbox.enabled = false;
    let seen = bash(&off, &command).await;
    assert!(seen.text.contains("[ran unconfined"), "{}", seen.text);
    assert!(target.exists());
}

#[tokio::test]
async fn network_is_isolated_unless_granted() {
    let (_d, ws) = workspace();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let command = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected");

    let env = env_at(&ws);
    let status = env.sandbox_status();
    let seen = bash(&env, &command).await;
    eprintln!("isolated: {}", seen.text);
    if status.network.is_isolated() && status.bash_runs {
        assert!(seen.is_error, "connected despite isolation: {}", seen.text);
        assert!(!seen.text.contains("connected\n"), "{}", seen.text);
    } else {
        assert!(seen.text.contains("bash is disabled"), "{}", seen.text);
    }

    let mut granted = env.clone();
    granted.sandbox.bash_network = true;
    let status = granted.sandbox_status();
    assert_eq!(status.network, NetworkConfinement::Granted);
    let seen = bash(&granted, &command).await;
    if status.bash_runs {
        assert!(!seen.is_error, "{}", seen.text);
        assert!(seen.text.starts_with("connected\n"), "{}", seen.text);
    }
}

#[tokio::test]
async fn unconfined_bash_needs_consent_and_says_so() {
    let (_d, ws) = workspace();
    let mut env = env_at(&ws);
    env.sandbox.enabled = false;
    let seen = bash(&env, "echo hi").await;
    assert!(!seen.is_error, "{}", seen.text);
    assert!(
        seen.text.starts_with("hi\n[ran unconfined"),
        "{}",
        seen.text
    );
    // Sandbox on but accepted as optional: where it is complete there is no note.
    let mut optional = env_at(&ws);
    optional.sandbox.allow_unconfined = true;
    let seen = bash(&optional, "echo hi").await;
    assert_eq!(
        seen.text.contains("[ran unconfined"),
        !optional.sandbox_status().fully_confined
    );
}

#[test]
fn status_reports_what_this_machine_enforces() {
    let ws = Path::new("/tmp/paddock-status-ws");
    let status = env_at(ws).sandbox_status();
    eprintln!("{}", status.summary);
    assert_eq!(status.workspace_root, ws.display().to_string());
    assert!(!status.summary.is_empty());
    match &status.filesystem {
        FsConfinement::Landlock { abi } => {
            assert!(*abi >= 1);
            assert!(
                status
                    .writable_roots
                    .iter()
                    .any(|r| r == "/tmp/paddock-status-ws")
            );
        }
        FsConfinement::Unavailable { reason } => {
            assert!(!reason.is_empty());
            assert!(status.writable_roots.is_empty() && !status.bash_runs);
        }
        FsConfinement::Disabled => panic!("the sandbox is on by default"),
    }
    assert!(status.network != NetworkConfinement::Granted);
}
