//! An external ACP agent (`tests/acp-fixtures/agent.mjs`, built with the official SDK) run
//! by `paddock exec --agent` behind Paddock's wall: its edit asks, lands in the workspace,
//! is recorded and rewinds; it cannot read the home's secrets or Paddock's data, write
//! outside the workspace, or reach a listener the policy does not name. Each hostile case
//! says what would happen without the wall.

use std::path::Path;

use paddock_fake_model::FakeServer;
use paddock_protocol::AgentEvent;
use serde_json::json;

use crate::acp_client::fixtures;
use crate::common::{Counter, Env, read, session_events};

/// A project whose user added the test agent.
async fn env_with_agent(fixtures: &Path) -> (FakeServer, Env) {
    env_with_agent_reaching(fixtures, &[]).await
}

/// The same, the agent allowed to reach `hosts`.
async fn env_with_agent_reaching(fixtures: &Path, hosts: &[String]) -> (FakeServer, Env) {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let agents = json!({"agents": {"tester": {
        "command": "node",
        "args": [fixtures.join("agent.mjs")],
        "env": {"AGENT_MARK": "set by the user"},
        "hosts": hosts,
    }}});
    std::fs::create_dir_all(env.config_dir()).unwrap();
    std::fs::write(env.config_dir().join("agents.json"), agents.to_string()).unwrap();
    (server, env)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_agents_edit_is_approved_recorded_and_rewound() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let run = env
        .run(&[
            "exec",
            "--agent",
            "tester",
            "--ask-allows",
            "write notes/a.txt hello from outside\nplan",
        ])
        .await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("RESULT write ok: notes/a.txt"),
        "{}",
        run.stdout
    );
    assert_eq!(
        read(&env.workspace().join("notes/a.txt")),
        "hello from outside\n"
    );

    let (id, events) = session_events(&env, &run.stderr);
    let stored = env.load(&id);
    assert_eq!(stored.header.provider.as_deref(), Some("acp"));
    assert_eq!(stored.header.model, "tester");
    assert!(events.iter().any(|e| matches!(e, AgentEvent::ToolCallFinished { summary, .. } if summary.contains("Write notes/a.txt"))), "{events:?}");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, AgentEvent::Plan(p) if p.items.len() == 2))
    );
    // Paddock's own record of what changed, not the agent's word.
    let changed = events.iter().find_map(|e| match e {
        AgentEvent::RunChanges { files, .. } => Some(files.clone()),
        _ => None,
    });
    let changed = changed.expect("the run's changes listed");
    assert!(
        changed.iter().any(|f| f.path == "notes/a.txt"),
        "{changed:?}"
    );

    // The agent's own folder (its transcripts) is private like sessions: without the mode,
    // another local user could read it.
    use std::os::unix::fs::PermissionsExt;
    let data = env.store().root().parent().unwrap().to_path_buf();
    let name = data.file_name().unwrap().to_string_lossy().into_owned();
    let agents = data.with_file_name(format!("{name}-agents"));
    for dir in [
        agents.clone(),
        agents.read_dir().unwrap().next().unwrap().unwrap().path(),
    ] {
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "{}", dir.display());
    }

    // The prompt can be rewound: the agent's file goes.
    env.run(&["rewind", &id, "--to", "1", "--files-only"])
        .await
        .expect_code(0);
    assert!(!env.workspace().join("notes/a.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headless_an_agents_permission_request_is_denied_and_nothing_is_written() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let run = env
        .run(&["exec", "--agent", "tester", "write a.txt should not be"])
        .await;
    assert!(
        run.stdout.contains("RESULT write refused"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    assert!(!env.workspace().join("a.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_wall_holds_an_external_agent_in() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    // Secrets the agent must not see: an SSH key in the real home, another project's file.
    let ssh = env.home().join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_rsa"), "PRIVATE KEY").unwrap();
    let outside = env.home().join("elsewhere.txt");
    let listener = Counter::start().await;
    let port = listener
        .url
        .rsplit(':')
        .next()
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let prompt = format!(
        "read {ssh}/id_rsa\nwrite {out} escaped\nconnect 127.0.0.1 {port}\nread {data}",
        ssh = ssh.display(),
        out = outside.display(),
        data = env.store().root().display(),
    );
    let run = env
        .run(&["exec", "--agent", "tester", "--ask-allows", &prompt])
        .await;
    let said = &run.stdout;
    // Without the wall: the key's text, a file in the home, one connection.
    assert!(
        said.contains("RESULT read failed") && !said.contains("PRIVATE KEY"),
        "{said}"
    );
    assert!(said.contains("RESULT write failed"), "{said}");
    assert!(!outside.exists(), "the agent wrote outside its workspace");
    assert!(said.contains("RESULT connect failed"), "{said}");
    assert_eq!(
        listener.hits(),
        0,
        "the agent reached a host nothing allows"
    );
    // Paddock's session data is not in its view either.
    let data_line = said
        .lines()
        .find(|l| l.contains(&env.store().root().display().to_string()));
    assert!(data_line.is_some_and(|l| l.contains("failed")), "{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_cancels_an_external_agents_prompt_and_stops_it() {
    use rustix::process::{Pid, Signal, kill_process};
    use tokio::io::AsyncBufReadExt;

    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let mut child = env.spawn(&["exec", "--agent", "tester", "--json", "plan\nhang"]);
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    // The agent is under way (its plan arrived) and now waits for the cancel.
    loop {
        let line = tokio::time::timeout(crate::common::RUN_LIMIT, lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .expect("the run streams until the plan");
        if line.contains("\"plan\"") {
            break;
        }
    }
    let pid = Pid::from_raw(i32::try_from(child.id().unwrap()).unwrap()).unwrap();
    kill_process(pid, Signal::INT).unwrap();
    let mut rest = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        rest.push(line);
    }
    let status = tokio::time::timeout(crate::common::RUN_LIMIT, child.wait())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}");
    let exit: serde_json::Value = serde_json::from_str(rest.last().unwrap()).unwrap();
    assert_eq!(exit["reason"], "aborted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_reaches_the_host_loopback_port_its_user_allowed_and_no_other() {
    let Some(fixtures) = fixtures() else { return };
    // Its API: a server on the host's loopback (a local model server, the fake one here).
    let api = FakeServer::start().await.unwrap();
    let allowed = api.addr().port();
    let (_server, env) =
        env_with_agent_reaching(&fixtures, &[format!("127.0.0.1:{allowed}")]).await;
    let other = Counter::start().await;
    let other_port = other.url.rsplit(':').next().unwrap().to_owned();
    let prompt = format!("get 127.0.0.1 {allowed} /v1/models\nget 127.0.0.1 {other_port}");
    let run = env.run(&["exec", "--agent", "tester", &prompt]).await;
    let said = &run.stdout;
    // Inside the wall 127.0.0.1 is the wall's own: without the tunnel both fail.
    assert!(
        said.contains("RESULT get ok: HTTP/1.1 200"),
        "{said}\n{}",
        run.stderr
    );
    assert!(
        !api.requests().is_empty(),
        "the allowed server was reached: {said}"
    );
    // Without the wall the other listener would be reached too; inside it, no rule names
    // it, so nothing leads there.
    assert!(
        said.contains(&format!("RESULT get failed: 127.0.0.1:{other_port}")),
        "{said}"
    );
    assert_eq!(other.hits(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_loads_the_agents_own_session_so_it_remembers() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let first = env.run(&["exec", "--agent", "tester", "plan"]).await;
    first.expect_code(0);
    let (id, _) = session_events(&env, &first.stderr);
    // A new process, a new wall: the agent loads the session it kept in its own home.
    let again = env
        .run(&["resume", "--agent", "tester", &id, "recall"])
        .await;
    again.expect_code(0);
    assert!(
        again.stdout.contains("RESULT recall: plan"),
        "{}\n{}",
        again.stdout,
        again.stderr
    );
    assert!(!again.stderr.contains("cannot load"), "{}", again.stderr);
    let stored = env.load(&id);
    let prompts: Vec<String> = stored
        .messages
        .iter()
        .filter(|m| m.role == paddock_protocol::Role::User)
        .map(|m| m.text())
        .collect();
    assert_eq!(prompts, ["plan", "recall"]);
    // Paddock's own agent does not take over an external agent's session.
    let kernel = env.run(&["resume", &id, "hello"]).await;
    kernel.expect_code(2);
    assert!(
        kernel.stderr.contains("external agent tester"),
        "{}",
        kernel.stderr
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mode_the_agent_does_not_offer_is_refused_by_name_not_dropped() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let agents = json!({"agents": {"tester": {
        "command": "node",
        "args": [fixtures.join("agent.mjs")],
        "mode": "default",
    }}});
    std::fs::write(env.config_dir().join("agents.json"), agents.to_string()).unwrap();
    let run = env
        .run(&[
            "exec",
            "--agent",
            "tester",
            "write a.txt not with the wrong mode",
        ])
        .await;
    assert_ne!(run.code, 0);
    assert!(
        run.stderr
            .contains("sets its mode to default, which it does not offer (it offers no modes)"),
        "{}",
        run.stderr
    );
    assert!(!env.workspace().join("a.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_are_added_listed_and_removed_from_the_command_line() {
    let env = Env::bare();
    let added = env
        .run(&[
            "agents",
            "add",
            "mine",
            "--host",
            "api.example.com",
            "--env",
            "A=b=c",
            "--key-provider",
            "anthropic",
            "--",
            "prog",
            "--acp",
        ])
        .await;
    added.expect_code(0);
    assert!(
        added.stdout.contains("paddock exec --agent mine"),
        "{}",
        added.stdout
    );
    let again = env.run(&["agents", "add", "mine", "--", "other"]).await;
    again.expect_code(2);
    assert!(
        again.stderr.contains("already have an agent named mine"),
        "{}",
        again.stderr
    );
    env.run(&["agents", "add", "claude", "--known", "claude"])
        .await
        .expect_code(0);
    env.run(&["agents", "add", "../x", "--", "prog"])
        .await
        .expect_code(2);

    let listed = env.run(&["agents", "list", "--json"]).await;
    listed.expect_code(0);
    let agents: Vec<serde_json::Value> = listed
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(agents.len(), 2, "{}", listed.stdout);
    let claude = &agents[0]["config"];
    assert_eq!(claude["command"], "claude-agent-acp");
    assert_eq!(claude["hosts"], json!(["api.anthropic.com"]));
    assert_eq!(claude["mode"], "default");
    assert_eq!(
        agents[1]["config"],
        json!({"command": "prog", "args": ["--acp"], "env": {"A": "b=c"},
            "hosts": ["api.example.com"],
            "key": {"provider": "anthropic", "env": "ANTHROPIC_API_KEY"}})
    );
    let known = env.run(&["agents", "known"]).await;
    for id in ["claude", "gemini", "codex"] {
        assert!(known.stdout.contains(id), "{}", known.stdout);
    }
    env.run(&["agents", "remove", "mine"]).await.expect_code(0);
    let left = env.run(&["agents", "list"]).await;
    assert!(
        !left.stdout.contains("mine") && left.stdout.contains("claude"),
        "{}",
        left.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_for_an_agent_that_takes_none_is_refused_by_name() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let mut png = std::io::Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(2, 2)
        .write_to(&mut png, image::ImageFormat::Png)
        .unwrap();
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png.into_inner()).unwrap();
    let run = env
        .run(&[
            "exec",
            "--agent",
            "tester",
            "--image",
            &shot.display().to_string(),
            "plan",
        ])
        .await;
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("it takes no images") && run.stderr.contains("shot.png"),
        "{}",
        run.stderr
    );
    assert!(
        !run.stdout.contains("RESULT"),
        "nothing reached it: {}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_at_file_outside_the_workspace_never_reaches_an_agent() {
    let Some(fixtures) = fixtures() else { return };
    let (_server, env) = env_with_agent(&fixtures).await;
    let outside = env.home().join("outside.txt");
    std::fs::write(&outside, "SECRET-OUTSIDE").unwrap();
    std::fs::create_dir_all(env.workspace()).unwrap();
    std::os::unix::fs::symlink(&outside, env.workspace().join("link.txt")).unwrap();
    // Without the path guard the file's text would go along in the prompt.
    for named in ["@../../outside.txt", "@link.txt"] {
        let run = env
            .run(&["exec", "--agent", "tester", &format!("plan {named}")])
            .await;
        run.expect_code(2);
        assert!(run.stderr.contains(named), "{}", run.stderr);
        assert!(
            !run.stdout.contains("RESULT"),
            "the agent was started: {}",
            run.stdout
        );
        assert!(!run.stdout.contains("SECRET") && !run.stderr.contains("SECRET"));
    }
    assert!(
        env.store().list(&env.project()).unwrap().is_empty(),
        "no session written"
    );
}
