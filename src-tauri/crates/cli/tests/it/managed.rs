//! Issue 53: the machine's managed policy (`/etc/paddock/managed-settings.json` and its
//! drop-ins; here a folder named by `PADDOCK_MANAGED_DIR`) holds against everything a folder,
//! a run's flags or the model can do. Each test has its control: the same run without the
//! policy does what the policy stops.

use std::path::Path;

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies, tool_contents};

/// `env` with a policy folder holding `policy` as its main file.
fn with_policy(env: &mut Env, policy: &Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        serde_json::to_string(policy).unwrap(),
    )
    .unwrap();
    env.set_env("PADDOCK_MANAGED_DIR", dir.path().to_str().unwrap());
    dir
}

/// A folder that grants bash and allows `touch *` by rule.
fn open_folder(server: &FakeServer) -> Env {
    Env::new(
        server,
        json!({
            "preset": "full",
            "rules": {"bash": [{"allow": "touch *"}]},
            "allowUnconfinedBash": true
        }),
    )
}

fn last_result(server: &FakeServer) -> String {
    chat_bodies(server)
        .last()
        .map(tool_contents)
        .and_then(|r| r.into_iter().next())
        .unwrap_or_default()
}

async fn touch_run(env: &Env, server: &FakeServer, args: &[&str]) -> crate::common::Run {
    server.push_all([
        Reply::tool_call("bash", json!({"command": "touch pwned"})),
        Reply::text("done"),
    ]);
    env.run(args).await
}

/// The policy's deny rule beats the folder's allow rule; the model is told why, naming
/// the policy file. Control: without the policy the call runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_managed_deny_rule_beats_the_folders_allow() {
    let server = FakeServer::start().await.unwrap();
    let mut env = open_folder(&server);
    touch_run(&env, &server, &["exec", "go"])
        .await
        .expect_code(0);
    assert!(env.workspace().join("pwned").exists(), "control");
    std::fs::remove_file(env.workspace().join("pwned")).unwrap();

    let _policy = with_policy(
        &mut env,
        &json!({"version": 1, "denyRules": {"bash": ["touch *"]}}),
    );
    let run = touch_run(&env, &server, &["exec", "go"]).await;
    assert!(!env.workspace().join("pwned").exists(), "{}", run.stderr);
    let result = last_result(&server);
    assert!(result.contains("the managed policy"), "{result}");
    assert!(result.contains("managed-settings.json"), "{result}");

    let e = env
        .run(&["rules", "explain", "--json", "--", "touch x"])
        .await;
    e.expect_code(0);
    let e: Value = serde_json::from_str(&e.stdout).unwrap();
    assert_eq!(e["decision"], "deny", "{e}");
    assert!(e["why"].as_str().unwrap().contains("managed policy"), "{e}");
}

/// A folder's `full` preset and its own bash grant are capped: bash is asked for, which a
/// headless run refuses. Control: the same folder without the policy runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_cannot_widen_the_capped_preset() {
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(
        &server,
        json!({"preset": "full", "tools": {"bash": "allow"}, "allowUnconfinedBash": true}),
    );
    touch_run(&env, &server, &["exec", "go"])
        .await
        .expect_code(0);
    assert!(env.workspace().join("pwned").exists(), "control");
    std::fs::remove_file(env.workspace().join("pwned")).unwrap();

    let _policy = with_policy(&mut env, &json!({"version": 1, "maxPreset": "readwrite"}));
    let run = touch_run(&env, &server, &["exec", "go"]).await;
    assert!(!env.workspace().join("pwned").exists(), "{}", run.stderr);
}

/// Flags that would loosen the policy are refused before anything runs, naming the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flags_cannot_loosen_the_policy() {
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(&server, json!({}));
    let policy = with_policy(
        &mut env,
        &json!({
            "version": 1,
            "maxPreset": "readonly",
            "forbidAskAllows": true,
            "network": {"allow": ["pkgs.example.com"], "allowAdditions": false}
        }),
    );
    let file = policy.path().join("managed-settings.json");
    for args in [
        &["exec", "--preset", "full", "go"][..],
        &["exec", "--allow", "bash", "go"],
        &["exec", "--ask-allows", "go"],
        &["exec", "--allow-host", "exfil.example", "go"],
    ] {
        let run = env.run(args).await;
        run.expect_code(2);
        assert!(
            run.stderr.contains("not allowed here"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(file.to_str().unwrap()),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert!(chat_bodies(&server).is_empty(), "no model call was made");
}

/// A broken policy stops runs (fail closed), naming the file; it is never ignored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_broken_policy_stops_runs() {
    let server = FakeServer::start().await.unwrap();
    let mut env = open_folder(&server);
    let dir = tempfile::tempdir().unwrap();
    let drop_in = dir.path().join("managed-settings.d");
    std::fs::create_dir_all(&drop_in).unwrap();
    let broken = drop_in.join("10-team.json");
    std::fs::write(&broken, r#"{"version": 1, "maxPreset": "everything"}"#).unwrap();
    env.set_env("PADDOCK_MANAGED_DIR", dir.path().to_str().unwrap());
    let run = touch_run(&env, &server, &["exec", "go"]).await;
    run.expect_code(3);
    assert!(
        run.stderr.contains(broken.to_str().unwrap()),
        "{}",
        run.stderr
    );
    assert!(!Path::new(&env.workspace().join("pwned")).exists());
    let doctor = env.run(&["doctor"]).await;
    assert!(
        doctor.stdout.contains(broken.to_str().unwrap()),
        "{}",
        doctor.stdout
    );
    assert_ne!(doctor.code, 0, "doctor fails on a broken policy");
}

/// doctor names the policy's files and what they fix.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn doctor_names_the_policy() {
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(&server, json!({}));
    let run = env.run(&["doctor"]).await;
    assert!(run.stdout.contains("no managed policy"), "{}", run.stdout);
    let policy = with_policy(
        &mut env,
        &json!({"version": 1, "maxPreset": "readwrite", "requireWall": true}),
    );
    let run = env.run(&["doctor"]).await;
    let file = policy.path().join("managed-settings.json");
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("managed by"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(line.contains(file.to_str().unwrap()), "{line}");
    assert!(line.contains("presets capped at readwrite"), "{line}");
    assert!(line.contains("bash only behind the wall"), "{line}");
}

/// A model address off the policy's list is refused before any request, naming the file;
/// on the list, the run goes on. A provider off the list likewise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_allowed_models_are_called() {
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(&server, json!({}));
    let _elsewhere = with_policy(
        &mut env,
        &json!({"version": 1, "allowedBaseUrls": ["https://llm.corp.example/v1"]}),
    );
    server.push_all([Reply::text("hello")]);
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(2);
    assert!(run.stderr.contains("model address"), "{}", run.stderr);
    assert!(
        run.stderr.contains("managed-settings.json"),
        "{}",
        run.stderr
    );
    assert!(chat_bodies(&server).is_empty(), "no request went out");

    let _providers = with_policy(
        &mut env,
        &json!({"version": 1, "allowedProviders": ["anthropic"]}),
    );
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("openai-compatible provider"),
        "{}",
        run.stderr
    );

    let _here = with_policy(
        &mut env,
        &json!({"version": 1, "allowedBaseUrls": [server.url()],
                "allowedProviders": ["openai-compatible"]}),
    );
    let run = env.run(&["exec", "hi"]).await;
    run.expect_code(0);
    assert!(run.stdout.contains("hello"), "{}", run.stdout);
}

/// A project hook whose command is off the policy's list does not run; on the list, it
/// does (the control): here a guard that refuses every bash call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_allowed_hooks_run() {
    let server = FakeServer::start().await.unwrap();
    let mut env = crate::hooks::with_hooks(
        &server,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "echo 'held by the guard' >&2; exit 2"}
        ]}]}),
    );
    let call = |server: &FakeServer| {
        server.push_all([
            Reply::tool_call("bash", json!({"command": "true"})),
            Reply::text("done"),
        ]);
    };
    let _only_guard = with_policy(
        &mut env,
        &json!({"version": 1, "allowedHookCommands": ["/opt/corp/guard.sh *"]}),
    );
    call(&server);
    env.run(&["exec", "go"]).await;
    let result = last_result(&server);
    assert!(
        !result.contains("held by the guard"),
        "a hook off the list ran: {result}"
    );

    let _echo = with_policy(
        &mut env,
        &json!({"version": 1, "allowedHookCommands": ["echo *"]}),
    );
    call(&server);
    env.run(&["exec", "go"]).await;
    let result = last_result(&server);
    assert!(
        result.contains("held by the guard"),
        "the allowed hook did not run: {result}"
    );
}

/// An external agent off the policy's list is refused before it starts, naming the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_allowed_external_agents_start() {
    let server = FakeServer::start().await.unwrap();
    let mut env = Env::new(&server, json!({}));
    let agents = json!({"agents": {"tester": {"command": "sh", "args": ["-c", "touch started"]}}});
    std::fs::create_dir_all(env.config_dir()).unwrap();
    std::fs::write(env.config_dir().join("agents.json"), agents.to_string()).unwrap();
    let _policy = with_policy(
        &mut env,
        &json!({"version": 1, "allowedAgents": [{"name": "claude"}]}),
    );
    let run = env.run(&["exec", "--agent", "tester", "hi"]).await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("external agent tester"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("managed-settings.json"),
        "{}",
        run.stderr
    );
    assert!(!env.workspace().join("started").exists());
}
