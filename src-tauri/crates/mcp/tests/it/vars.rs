//! `${VAR}` and `envFile` in a server's entry reach the real server-everything when it
//! starts (its `get-env` tool shows its environment); what cannot be resolved fails that
//! server's start with the field named, and provider keys are never handed over.

use std::collections::BTreeMap;

use paddock_core::GrantPolicy;
use paddock_core::protocol::McpServerState;
use paddock_core::scripted::ScriptedTurn;
use paddock_mcp::{McpOptions, McpServers};
use serde_json::json;

use crate::common::{everything, one, registry_of, results, run_agent, started, stdio_config};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn variables_and_env_files_reach_the_server_and_stay_out_of_the_settings() {
    let Some(js) = everything() else { return };
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("mcp.env"),
        "# secrets\nexport FROM_FILE=\"file value\"\nOVERRIDDEN=file\n",
    )
    .unwrap();
    let home = std::env::var("HOME").unwrap();
    let mut config = stdio_config(&js);
    config.env = BTreeMap::from([
        ("FROM_VAR".to_owned(), "home is ${HOME}".to_owned()),
        (
            "FROM_DEFAULT".to_owned(),
            "${PADDOCK_SURELY_UNSET:-fallback}".to_owned(),
        ),
        ("WHERE".to_owned(), "${workspaceFolder}/db".to_owned()),
        ("OVERRIDDEN".to_owned(), "env".to_owned()),
        (
            "FROM_KEYCHAIN".to_owned(),
            "${PADDOCK_TEST_STORED}".to_owned(),
        ),
    ]);
    config.env_file = Some("mcp.env".into());
    let configs = one("everything", config.clone());
    let options = McpOptions {
        base_dir: Some(project.path().to_path_buf()),
        ..McpOptions::default()
    };
    let servers = McpServers::new(options);
    let stored = BTreeMap::from([(
        "PADDOCK_TEST_STORED".to_owned(),
        "kept in the keychain".to_owned(),
    )]);
    servers.start_with_vars(&configs, &stored).await;
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__everything__get-env", json!({}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let (text, is_error) = results(&run).remove(0);
    assert!(!is_error, "{text}");
    let env: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(env["FROM_VAR"], format!("home is {home}"));
    assert_eq!(env["FROM_DEFAULT"], "fallback");
    assert_eq!(env["WHERE"], format!("{}/db", project.path().display()));
    assert_eq!(env["FROM_FILE"], "file value");
    assert_eq!(env["OVERRIDDEN"], "env", "env wins over envFile");
    assert_eq!(env["FROM_KEYCHAIN"], "kept in the keychain");
    assert_eq!(
        configs["everything"], config,
        "the entry keeps its variables"
    );
    servers.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unresolvable_entries_fail_to_start_saying_why() {
    let Some(js) = everything() else { return };
    let mut unset = stdio_config(&js);
    unset.headers.clear();
    unset.env = BTreeMap::from([("T".to_owned(), "${PADDOCK_SURELY_UNSET}".to_owned())]);
    let mut key = stdio_config(&js);
    key.args.push("${ANTHROPIC_API_KEY}".to_owned());
    let mut file = stdio_config(&js);
    file.env_file = Some("/nonexistent/mcp.env".into());
    let configs = BTreeMap::from([
        ("unset".to_owned(), unset),
        ("key".to_owned(), key),
        ("file".to_owned(), file),
    ]);
    let options = McpOptions {
        hide_env: vec!["ANTHROPIC_API_KEY".to_owned()],
        ..McpOptions::default()
    };
    let servers = started(&configs, options).await;
    for (name, needle) in [
        ("unset", "env.T: `${PADDOCK_SURELY_UNSET}` is not set"),
        ("key", "provider API key"),
        ("file", "envFile /nonexistent/mcp.env"),
    ] {
        match servers.status(name).unwrap().state {
            McpServerState::Failed { error } => assert!(error.contains(needle), "{name}: {error}"),
            other => panic!("{name} should have failed: {other:?}"),
        }
    }
    servers.shutdown().await;
}

/// A cloned folder's envFile is a stranger's file: a symlink to a credentials file, a FIFO or
/// a huge file is refused (each fails its server's start, quickly). Without `read_untrusted`
/// the symlink case reads the linked secrets into the server's environment (and a FIFO would
/// block the start).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn env_files_are_read_as_strangers_files() {
    let Some(js) = everything() else { return };
    let project = tempfile::tempdir().unwrap();
    let secret = project.path().join("outside-credentials");
    std::fs::write(&secret, "AWS_SECRET=hunter2\n").unwrap();
    std::os::unix::fs::symlink(&secret, project.path().join("link.env")).unwrap();
    let fifo = project.path().join("fifo.env");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::fs::write(project.path().join("huge.env"), "A=b\n".repeat(100_000)).unwrap();
    let server = |file: &str| {
        let mut c = stdio_config(&js);
        c.env_file = Some(file.into());
        c
    };
    let configs = BTreeMap::from([
        ("link".to_owned(), server("link.env")),
        ("fifo".to_owned(), server("fifo.env")),
        ("huge".to_owned(), server("huge.env")),
    ]);
    let options = McpOptions {
        base_dir: Some(project.path().to_path_buf()),
        ..McpOptions::default()
    };
    let started_at = std::time::Instant::now();
    let servers = started(&configs, options).await;
    assert!(started_at.elapsed() < std::time::Duration::from_secs(5));
    for name in ["link", "fifo", "huge"] {
        match servers.status(name).unwrap().state {
            McpServerState::Failed { error } => {
                assert!(error.contains("envFile"), "{name}: {error}")
            }
            other => panic!("{name} should have failed: {other:?}"),
        }
    }
    servers.shutdown().await;
}
