//! A secret planted in Paddock's own environment never reaches bash. The test runs itself
//! again as a child process with the secrets in its environment from the start, so no test
//! has to change the environment of a process where others run.

use serde_json::json;

use crate::tools_support::{call, env_at};

/// Set in the child run, which plants nothing and checks.
const CHILD_MARK: &str = "PADDOCK_TEST_BASH_ENV_CHILD";

const PLANTED: &[(&str, &str)] = &[
    ("FAKE_API_KEY", "fake-key-value-0123456789"),
    ("MY_SERVICE_TOKEN", "token-value-abcdefgh"),
    ("LC_SESSION_COOKIE", "cookie-value-abcdefgh"),
    ("UNLISTED_HARMLESS", "plain-value"),
];

#[test]
fn planted_secrets_never_reach_the_child() {
    if std::env::var_os(CHILD_MARK).is_some() {
        return;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "bash_env::planted_secrets_checked_in_the_child",
            "--exact",
            "--include-ignored",
            "--nocapture",
        ])
        .envs(PLANTED.iter().copied())
        .env(CHILD_MARK, "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // The filter matched: a run of zero tests would pass without checking anything.
    assert!(text.contains("1 passed"), "{text}");
}

/// The check itself: only meaningful in the child, which the test above starts.
#[tokio::test]
#[ignore = "run by planted_secrets_never_reach_the_child in a child process"]
async fn planted_secrets_checked_in_the_child() {
    assert!(
        std::env::var_os(CHILD_MARK).is_some(),
        "run through planted_secrets_never_reach_the_child"
    );
    for (name, value) in PLANTED {
        assert_eq!(std::env::var(name).as_deref(), Ok(*value), "{name} planted");
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let mut env = env_at(&ws);
    // Checked without the sandbox too, so the test runs on any Linux machine.
    if !env.sandbox_status().bash_runs {
        env.sandbox.allow_unconfined = true;
    }
    let seen = call(
        &env,
        "bash",
        json!({"command": "env; echo \"planted=${FAKE_API_KEY:-unset}\"; echo \"tmp=$TMPDIR\""}),
    )
    .await;
    assert!(!seen.is_error, "{}", seen.text);
    for (name, value) in PLANTED {
        assert!(
            !seen.text.contains(name),
            "{name} reached bash:\n{}",
            seen.text
        );
        assert!(!seen.text.contains(value), "{name}'s value reached bash");
    }
    assert!(seen.text.contains("planted=unset"), "{}", seen.text);
    assert!(seen.text.contains("PATH="), "{}", seen.text);
    assert!(seen.text.contains(&format!("PWD={}", ws.display())));
    assert!(seen.text.contains("tmp=/"), "{}", seen.text);
    // The host's secret-looking values are also redacted should a file reveal one.
    let seen = call(
        &env,
        "bash",
        json!({"command": "echo 'found fake-key-value-0123456789 in a file'"}),
    )
    .await;
    assert!(
        seen.text.starts_with("found [REDACTED] in a file"),
        "{}",
        seen.text
    );
}
