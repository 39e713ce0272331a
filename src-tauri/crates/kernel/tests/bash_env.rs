//! A secret planted in Paddock's own environment never reaches bash. Its own test binary:
//! it changes the process environment, which must not race other tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "it/tools_support.rs"]
mod tools_support;

use serde_json::json;
use tools_support::{call, env_at};

const PLANTED: &[(&str, &str)] = &[
    ("FAKE_API_KEY", "fake-key-value-0123456789"),
    ("MY_SERVICE_TOKEN", "token-value-abcdefgh"),
    ("LC_SESSION_COOKIE", "cookie-value-abcdefgh"),
    ("UNLISTED_HARMLESS", "plain-value"),
];

#[tokio::test]
async fn planted_secrets_never_reach_the_child() {
    for (name, value) in PLANTED {
        // SAFETY: this binary has a single test, and nothing else runs yet.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var(name, value);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    let mut env = env_at(&ws);
    // Checked without the sandbox too, so the test runs on any Linux machine.
    if !paddock_kernel::sandbox::status(&env).bash_runs {
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
