//! bash: layout and exit codes, the timeout killing background grandchildren, cancel,
//! redaction, and the OS sandbox (writes outside the workspace, network) on this machine.
//! Where a facility is missing the test checks that bash is refused instead, which is what
//! the default settings promise.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::tools_support::{Seen, call, call_with, context, env_at};
use paddock_protocol::{ProtectionKind, ProtectionState, SandboxEngine};
use paddock_tools::ToolEnv;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A workspace, in a folder that also holds what is "outside": under the target's tmp
/// folder (the wall empties /tmp, which would hide outside files for another reason).
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let ws = dir.path().canonicalize().unwrap().join("ws");
    std::fs::create_dir(&ws).unwrap();
    (dir, ws)
}

async fn bash(env: &ToolEnv, command: &str) -> Seen {
    call(env, "bash", json!({"command": command})).await
}

/// A sleep only this test starts: its duration marks it among the host's processes (a pid
/// read inside the sandbox belongs to the sandbox's PID namespace).
fn marked_sleep(tag: u32) -> String {
    format!("sleep 1{tag:04}.25")
}

/// Whether a live (not zombie) process on the host runs `cmdline` (space-separated).
pub fn running(cmdline: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let dir = e.path();
        let Ok(raw) = std::fs::read(dir.join("cmdline")) else {
            return false;
        };
        let line = String::from_utf8_lossy(&raw).replace('\0', " ");
        let zombie = std::fs::read_to_string(dir.join("stat"))
            .ok()
            .and_then(|st| {
                st.rsplit(')')
                    .next()
                    .map(|r| r.trim_start().starts_with('Z'))
            })
            .unwrap_or(true);
        line.trim_end() == cmdline && !zombie
    })
}

/// Waits (up to 5 s) until a process runs `cmdline`.
pub async fn appears(cmdline: &str) -> bool {
    for _ in 0..50 {
        if running(cmdline) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Waits (up to 5 s) until no process runs `cmdline`.
pub async fn gone(cmdline: &str) -> bool {
    for _ in 0..50 {
        if !running(cmdline) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

/// Whether this machine gives bash the full default sandbox. With `PADDOCK_REQUIRE_SANDBOX=1`
/// (CI) a machine that does not is a failure, never a skip.
fn confined(env: &ToolEnv) -> bool {
    let status = env.sandbox_status();
    if !status.fully_confined && std::env::var("PADDOCK_REQUIRE_SANDBOX").as_deref() == Ok("1") {
        panic!(
            "the full sandbox is required (PADDOCK_REQUIRE_SANDBOX=1) but this machine gives: {}",
            status.summary
        );
    }
    status.fully_confined
}

fn network_state(env: &ToolEnv) -> ProtectionState {
    env.sandbox_status()
        .protection(ProtectionKind::Network)
        .unwrap()
        .state
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

/// Exit code 127 is both "the wall never started it" and a started command's own (a
/// missing program): the wall says which in a field of its own, so a hook's failure names
/// the wall's reason only when there is one.
#[tokio::test]
async fn a_start_failure_is_told_apart_from_a_command_exiting_127() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("not-a-folder");
    std::fs::write(&root, "x").unwrap();
    let kit = context(env_at(&root), CancellationToken::new());
    let env = env_at(&root);
    let limit = std::time::Duration::from_secs(30);
    let line = paddock_wall::command::WalledCommand::line("exit 127");
    let ran = paddock_wall::command::run_walled(&env.wall(), &line, limit, &kit.ctx).await;
    assert_eq!(ran.exit_code, 127);
    assert!(
        ran.not_started
            .as_deref()
            .is_some_and(|w| w.contains("could not start")),
        "{ran:?}"
    );

    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return;
    }
    let ran = paddock_wall::command::run_walled(&env.wall(), &line, limit, &kit.ctx).await;
    assert_eq!(ran.exit_code, 127);
    assert_eq!(ran.not_started, None, "{ran:?}");
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
    let bg = marked_sleep(1);
    let seen = call(
        &env,
        "bash",
        json!({"command": format!("{bg} & sleep 100"), "timeout_secs": 1}),
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
    assert!(gone(&bg).await, "background {bg} survived the timeout");
}

#[tokio::test]
async fn background_jobs_do_not_hold_the_call_and_are_stopped() {
    let (_d, ws) = workspace();
    let env = env_at(&ws);
    if !confined(&env) {
        return;
    }
    let started = Instant::now();
    let bg = marked_sleep(2);
    let seen = bash(&env, &format!("{bg} & echo started")).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(!seen.is_error, "{}", seen.text);
    assert!(gone(&bg).await, "background {bg} survived");
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
    let bg = marked_sleep(3);
    let input = json!({"command": format!("{bg} & sleep 100")});
    let call = tool.call(&input, &kit.ctx);
    assert!(
        tokio::time::timeout(Duration::from_millis(1000), call)
            .await
            .is_err()
    );
    assert!(gone(&bg).await, "background {bg} outlived the dropped call");
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
    if confined(&env) {
        assert!(!seen.is_error, "{}", seen.text);
        assert!(seen.text.starts_with("tmp\nrc=1\n"), "{}", seen.text);
        // Outside is read-only, or not there at all when it sits in a folder the wall empties
        // (a checkout under /tmp).
        assert!(
            seen.text.contains("Read-only file system")
                || seen.text.contains("Permission denied")
                || seen.text.contains("No such file or directory"),
            "{}",
            seen.text
        );
        assert!(!target.exists(), "the write outside went through");
        assert!(ws.join("inside.txt").exists());
        assert_eq!(status.writable_roots.len(), 2);
    } else if !status.bash_runs {
        assert!(seen.text.contains("bash is disabled"), "{}", seen.text);
        assert!(!target.exists());
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
    if network_state(&env) == ProtectionState::Enforced && status.bash_runs {
        assert!(seen.is_error, "connected despite isolation: {}", seen.text);
        assert!(!seen.text.contains("connected\n"), "{}", seen.text);
    } else {
        assert!(seen.text.contains("bash is disabled"), "{}", seen.text);
    }

    let mut granted = env.clone();
    granted.sandbox.bash_network = true;
    let status = granted.sandbox_status();
    if status.bash_runs {
        assert_eq!(network_state(&granted), ProtectionState::Granted);
    }
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
    match &status.engine {
        SandboxEngine::None { reason } => {
            assert!(!reason.is_empty());
            assert!(status.writable_roots.is_empty() && !status.bash_runs);
        }
        SandboxEngine::Disabled => panic!("the sandbox is on by default"),
        _ => {
            assert!(
                status
                    .writable_roots
                    .iter()
                    .any(|r| r == "/tmp/paddock-status-ws")
            );
            assert_eq!(status.protections.len(), 6);
        }
    }
    assert_ne!(network_state(&env_at(ws)), ProtectionState::Granted);
}
