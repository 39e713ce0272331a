//! `paddock acp` driven by the official ACP TypeScript SDK's client: a prompt that edits a
//! file with the client's permission, a refusal, a cancel, a load that replays the session
//! and carries on, modes as presets, "Always allow" saving a rule, and a folder whose
//! settings wait for trust.

use paddock_fake_model::{FakeServer, Fault, Reply};
use serde_json::{Value, json};

use crate::acp_client::{Step, drive, fixtures, session_id};
use crate::common::{Env, chat_bodies, read, tool_contents};

fn project(env: &Env) -> String {
    env.project().to_string_lossy().into_owned()
}

/// initialize + session/new in `env`'s project, then `then`.
fn opening(env: &Env, then: Value) -> Value {
    let mut steps = vec![
        json!({"do": "initialize"}),
        json!({"do": "new", "cwd": project(env)}),
    ];
    steps.extend(then.as_array().cloned().unwrap_or_default());
    Value::Array(steps)
}

fn notes(env: &Env, text: &str) {
    std::fs::create_dir_all(env.workspace()).unwrap();
    std::fs::write(env.workspace().join("notes.txt"), text).unwrap();
}

fn edit_reply() -> Reply {
    Reply::tool_call(
        "file_edit",
        json!({"path": "notes.txt", "old_string": "world", "new_string": "there"}),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_prompts_an_edit_approves_it_and_loads_the_session_back() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([edit_reply(), Reply::text("I said there.")]);
    let env = Env::new(
        &server,
        json!({"preset": "readwrite", "tools": {"file_edit": "ask"}}),
    );
    notes(&env, "hello world\n");
    let steps = opening(
        &env,
        json!([{"permission": "allow_once"}, {"do": "prompt", "text": "say there"}]),
    );
    let steps = drive(&env, &fixtures, steps).await;
    let [init, new, prompt] = &steps[..] else {
        panic!("{steps:?}")
    };
    assert_eq!(init.result["protocolVersion"], 1);
    assert_eq!(init.result["agentCapabilities"]["loadSession"], true);
    assert_eq!(init.result["agentInfo"]["name"], "paddock");
    assert_eq!(new.result["modes"]["currentModeId"], "settings");
    assert_eq!(prompt.error, Value::Null, "{prompt:?}");
    assert_eq!(prompt.result["stopReason"], "end_turn");

    // The call was shown, asked about, run, and its diff shown.
    let call = prompt.of("tool_call");
    assert_eq!(call.len(), 1, "{:?}", prompt.updates);
    assert_eq!(call[0]["kind"], "edit");
    assert_eq!(call[0]["status"], "pending");
    let path = env
        .workspace()
        .join("notes.txt")
        .to_string_lossy()
        .into_owned();
    assert_eq!(call[0]["locations"][0]["path"], path.as_str());
    assert_eq!(prompt.permissions.len(), 1);
    let asked = &prompt.permissions[0];
    assert_eq!(asked["toolCall"]["toolCallId"], call[0]["toolCallId"]);
    let kinds: Vec<&str> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"allow_once") && kinds.contains(&"reject_once"),
        "{kinds:?}"
    );
    let done = prompt.of("tool_call_update");
    assert_eq!(done[0]["status"], "completed", "{done:?}");
    let diff = done[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "diff")
        .expect("a diff");
    assert_eq!(diff["path"], path.as_str());
    assert_eq!(diff["oldText"], "hello world");
    assert_eq!(diff["newText"], "hello there");
    assert_eq!(prompt.answer(), "I said there.");
    assert_eq!(read(&env.workspace().join("notes.txt")), "hello there\n");

    // The session is Paddock's own, under the id the client was given: load replays it,
    // and a prompt after the load carries the conversation on.
    let id = session_id(new);
    let stored = env.load(&id);
    assert_eq!(stored.header.id, id);
    server.push(Reply::text("Still there."));
    let steps = drive(
        &env,
        &fixtures,
        json!([
            {"do": "initialize"},
            {"do": "load", "cwd": project(&env), "sessionId": id},
            {"do": "prompt", "text": "and now?"},
        ]),
    )
    .await;
    let load = &steps[1];
    assert_eq!(load.error, Value::Null, "{load:?}");
    assert_eq!(load.text("user_message_chunk"), "say there");
    assert_eq!(load.answer(), "I said there.");
    let replayed = load.of("tool_call_update");
    assert_eq!(replayed[0]["toolCallId"], call[0]["toolCallId"]);
    assert_eq!(replayed[0]["status"], "completed");
    assert!(
        replayed[0]["content"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["type"] == "diff")
    );
    assert_eq!(steps[2].result["stopReason"], "end_turn");
    let last = chat_bodies(&server).pop().unwrap();
    let history = last["messages"].to_string();
    assert!(
        history.contains("say there") && history.contains("and now?"),
        "{history}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_edit_changes_nothing_and_the_model_is_told() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([edit_reply(), Reply::text("fine")]);
    let env = Env::new(
        &server,
        json!({"preset": "readwrite", "tools": {"file_edit": "ask"}}),
    );
    notes(&env, "hello world\n");
    let steps = opening(
        &env,
        json!([{"permission": "reject_once"}, {"do": "prompt", "text": "say there"}]),
    );
    let steps = drive(&env, &fixtures, steps).await;
    let prompt = &steps[2];
    assert_eq!(prompt.permissions.len(), 1);
    assert_eq!(prompt.of("tool_call_update")[0]["status"], "failed");
    assert_eq!(read(&env.workspace().join("notes.txt")), "hello world\n");
    let told = tool_contents(&chat_bodies(&server)[1]).join("\n");
    assert!(told.to_lowercase().contains("denied"), "{told}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_stops_the_prompt_and_it_ends_cancelled() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    // The window is known, so the run says how full it is before the call that hangs.
    server.set_context_window(Some(8192));
    server.push_all([
        Reply::fault(Fault::Hang { after: 0 }),
        Reply::text("after the cancel"),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let steps = opening(
        &env,
        json!([
            {"do": "prompt", "text": "take forever", "cancelOn": "usage_update"},
            {"do": "prompt", "text": "again"},
        ]),
    );
    let steps = drive(&env, &fixtures, steps).await;
    assert_eq!(steps[2].result["stopReason"], "cancelled", "{:?}", steps[2]);
    // The session is free again and the next prompt runs.
    assert_eq!(steps[3].result["stopReason"], "end_turn", "{:?}", steps[3]);
    assert_eq!(steps[3].answer(), "after the cancel");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mode_is_a_preset_ceiling_for_the_sessions_runs() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([edit_reply(), Reply::text("could not")]);
    let env = Env::new(&server, json!({"preset": "readwrite"}));
    notes(&env, "hello world\n");
    let steps = opening(
        &env,
        json!([
            {"do": "mode", "modeId": "readonly"},
            {"do": "prompt", "text": "say there"},
        ]),
    );
    let steps = drive(&env, &fixtures, steps).await;
    let modes: Vec<&str> = steps[1].result["modes"]["availableModes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(modes, ["settings", "readonly", "readwrite", "full"]);
    let mode = &steps[2];
    assert_eq!(mode.error, Value::Null, "{mode:?}");
    assert_eq!(
        mode.of("current_mode_update")[0]["currentModeId"],
        "readonly"
    );
    let prompt = &steps[3];
    assert!(
        prompt.permissions.is_empty(),
        "a ceiling refuses, it does not ask"
    );
    assert_eq!(prompt.of("tool_call_update")[0]["status"], "failed");
    assert_eq!(read(&env.workspace().join("notes.txt")), "hello world\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn always_allow_saves_the_proposed_rule_and_the_next_call_does_not_ask() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("bash", json!({"command": "echo first"})),
        Reply::tool_call("bash", json!({"command": "echo first"})),
        Reply::text("twice"),
    ]);
    let env = Env::new(&server, json!({"preset": "full", "tools": {"bash": "ask"}}));
    let steps = opening(
        &env,
        json!([
            {"permission": "allow_always", "optionId": "rule"},
            {"do": "prompt", "text": "echo twice"},
        ]),
    );
    let steps = drive(&env, &fixtures, steps).await;
    let prompt = &steps[2];
    assert_eq!(prompt.permissions.len(), 1, "{:?}", prompt.permissions);
    let rule = prompt.permissions[0]["options"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["optionId"] == "rule")
        .expect("an Always allow option naming the rule")["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(rule.contains("bash `echo first`"), "{rule}");
    let done = prompt.of("tool_call_update");
    assert_eq!(done.len(), 2);
    assert!(done.iter().all(|u| u["status"] == "completed"), "{done:?}");
    let settings = read(&env.project().join(".paddock/settings.json"));
    assert!(settings.contains("echo first"), "{settings}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folders_untrusted_grants_wait_and_the_editor_is_told() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("bash", json!({"command": "echo owned > owned.txt"})),
        Reply::text("done"),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    // The cloned repository widens its own grants: nobody trusted that.
    let mut settings: Value =
        serde_json::from_str(&read(&env.project().join(".paddock/settings.json"))).unwrap();
    settings["preset"] = json!("full");
    settings["tools"] = json!({"bash": "allow"});
    env.write_untrusted_settings(&settings.to_string());
    let steps = drive(
        &env,
        &fixtures,
        opening(&env, json!([{"do": "prompt", "text": "go"}])),
    )
    .await;
    let prompt = &steps[2];
    let said = prompt.text("agent_message_chunk");
    assert!(said.contains("wait for your trust"), "{said}");
    assert!(said.contains("paddock trust"), "{said}");
    assert_eq!(prompt.of("tool_call_update")[0]["status"], "failed");
    assert!(prompt.permissions.is_empty());
    assert!(!env.workspace().join("owned.txt").exists());
    assert!(!env.project().join("owned.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_clear_errors_and_the_connection_carries_on() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let steps = drive(
        &env,
        &fixtures,
        json!([
            {"do": "initialize"},
            {"do": "new", "cwd": "relative/dir"},
            {"do": "load", "cwd": project(&env), "sessionId": "20260101000000-deadbeef"},
            {"do": "prompt", "text": "no session", "sessionId": "nope"},
            {"do": "new", "cwd": project(&env)},
        ]),
    )
    .await;
    let errors: Vec<&Step> = steps[1..4].iter().collect();
    assert!(
        errors[0].error["message"]
            .as_str()
            .unwrap()
            .contains("absolute")
    );
    assert_eq!(errors[1].error["code"], -32002, "{:?}", errors[1]);
    assert!(
        errors[2].error["message"]
            .as_str()
            .unwrap()
            .contains("no session")
    );
    assert!(steps[4].result["sessionId"].is_string(), "{:?}", steps[4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saved_prompts_are_commands_and_a_projects_is_shown_before_it_is_sent() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([Reply::text("hello sent"), Reply::text("fixed")]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let dir = env.project().join(".paddock/prompts");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("greet.md"),
        "---\ndescription: Greets someone\nargument-hint: NAME\n---\nSay hello to $ARGUMENTS.\n",
    )
    .unwrap();
    let mine = env.config_dir().join("prompts");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("fix.md"), "Fix $1 now.\n").unwrap();
    let (steps, all) = crate::acp_client::drive_all(
        &env,
        &fixtures,
        opening(
            &env,
            json!([
                {"do": "prompt", "text": "/greet Bob"},
                {"do": "prompt", "text": "/greet Bob"},
                {"do": "prompt", "text": "/fix tests"},
                {"do": "list", "cwd": project(&env)},
            ]),
        ),
    )
    .await;
    let commands = all
        .iter()
        .find(|u| u["sessionUpdate"] == "available_commands_update")
        .expect("the saved prompts offered as commands");
    let names: Vec<&str> = commands["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"fix"), "{names:?}");
    let greet = commands["availableCommands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"].as_str().is_some_and(|n| n.ends_with("greet")))
        .expect("the project's prompt is listed");
    assert_eq!(greet["input"]["hint"], "NAME");

    // First time: shown in full, nothing sent to the model.
    let shown = steps[2].text("agent_message_chunk");
    assert!(shown.contains("Say hello to $ARGUMENTS."), "{shown}");
    assert!(shown.contains("Nothing was sent"), "{shown}");
    assert_eq!(steps[2].result["stopReason"], "end_turn");
    // Sent again unchanged: that is the confirmation; the text arrives filled in.
    assert_eq!(steps[3].answer(), "hello sent");
    let bodies = chat_bodies(&server);
    assert_eq!(bodies.len(), 2, "the first /greet reached no model");
    assert!(
        bodies[0]["messages"]
            .to_string()
            .contains("Say hello to Bob.")
    );
    // The user's own prompt needs no confirmation.
    assert!(bodies[1]["messages"].to_string().contains("Fix tests now."));
    let listed = &steps[5].result["sessions"];
    assert_eq!(
        listed[0]["sessionId"],
        session_id(&steps[1]).as_str(),
        "{listed}"
    );
    assert_eq!(listed[0]["cwd"], project(&env).as_str());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_and_the_reasoning_stream_and_the_editors_servers_are_named_not_started() {
    let Some(fixtures) = fixtures() else { return };
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call(
            "todo_write",
            json!({"todos": [
                {"content": "Read the code", "status": "completed"},
                {"content": "Fix the bug", "status": "in_progress"}
            ]}),
        )
        .with_thinking("first a plan", "sig"),
        Reply::text("planned"),
    ]);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    let steps = vec![
        json!({"do": "initialize"}),
        json!({"do": "new", "cwd": project(&env), "mcpServers": [
            {"name": "editor-db", "command": "/bin/false", "args": [], "env": []}
        ]}),
        json!({"do": "prompt", "text": "plan it"}),
    ];
    let steps = drive(&env, &fixtures, Value::Array(steps)).await;
    let prompt = &steps[2];
    let plan = prompt.of("plan");
    assert_eq!(plan.len(), 1, "{:?}", prompt.updates);
    assert_eq!(plan[0]["entries"][0]["status"], "completed");
    assert_eq!(plan[0]["entries"][1]["content"], "Fix the bug");
    assert_eq!(plan[0]["entries"][1]["status"], "in_progress");
    assert_eq!(prompt.text("agent_thought_chunk"), "first a plan");
    let said = prompt.text("agent_message_chunk");
    assert!(
        said.contains("editor-db") && said.contains("not started"),
        "{said}"
    );
}

/// Writes `messages` to a fresh `paddock acp` as one batch and closes its stdin, as a client
/// piping a script does; returns the run and every message it wrote.
async fn batch(env: &Env, messages: &[Value]) -> (crate::common::Run, Vec<Value>) {
    let input: String = messages.iter().map(|m| format!("{m}\n")).collect();
    let run = env.run_with_stdin(&["acp"], &input).await;
    let sent = run
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    (run, sent)
}

/// The answer to request `id` among `sent`.
fn answer_to(sent: &[Value], id: u64, stderr: &str) -> Value {
    sent.iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
        .cloned()
        .unwrap_or_else(|| panic!("no answer to request {id} in {sent:#?}\nstderr: {stderr}"))
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A stored session of `env`'s project, made by `paddock exec`, for a batch to load.
async fn stored_session(env: &Env, server: &FakeServer) -> String {
    server.push(Reply::text("first answer"));
    let run = env.run(&["exec", "hello"]).await;
    run.expect_code(0);
    run.session_id()
}

/// Fails on main: `paddock acp` exited 0 at end of input with the prompt cancelled and its
/// answer (often the others' too) never written: the reader's end dropped the request tasks
/// and the writer's queue. A prompt sent right behind `session/load` could also miss its
/// session, the two racing on separate tasks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_closed_at_end_of_input_gets_every_answer_before_exit() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let id = stored_session(&env, &server).await;
    // Slow on purpose: the input has long ended while the answer streams.
    server.push(
        Reply::text("an answer after the end of input")
            .with_chunk_chars(4)
            .with_drip_ms(20),
    );
    let cwd = project(&env);
    let (run, sent) = batch(
        &env,
        &[
            request(0, "initialize", json!({"protocolVersion": 1})),
            request(1, "session/new", json!({"cwd": cwd, "mcpServers": []})),
            request(
                2,
                "session/load",
                json!({"cwd": cwd, "sessionId": id, "mcpServers": []}),
            ),
            request(
                3,
                "session/prompt",
                json!({"sessionId": id, "prompt": [{"type": "text", "text": "and now?"}]}),
            ),
            request(4, "session/list", json!({"cwd": cwd})),
        ],
    )
    .await;
    run.expect_code(0);
    let stderr = &run.stderr;
    assert_eq!(answer_to(&sent, 0, stderr)["result"]["protocolVersion"], 1);
    assert!(answer_to(&sent, 1, stderr)["result"]["sessionId"].is_string());
    assert!(answer_to(&sent, 2, stderr)["result"]["modes"].is_object());
    let prompt = answer_to(&sent, 3, stderr);
    assert_eq!(prompt["result"]["stopReason"], "end_turn", "{prompt}");
    assert!(answer_to(&sent, 4, stderr)["result"]["sessions"].is_array());
    let said: String = sent
        .iter()
        .filter(|m| m["params"]["sessionId"] == id.as_str())
        .filter(|m| m["params"]["update"]["sessionUpdate"] == "agent_message_chunk")
        .filter_map(|m| m["params"]["update"]["content"]["text"].as_str())
        .collect();
    assert!(said.ends_with("an answer after the end of input"), "{said}");
    // The prompt ran in the loaded session, its history carried on.
    let last = chat_bodies(&server).pop().unwrap().to_string();
    assert!(
        last.contains("hello") && last.contains("and now?"),
        "{last}"
    );
}

/// Fails on main (no answer at all, as above). With the fix to the end of input alone, it
/// hangs instead: the permission request sent after the client's stream ended waited for an
/// answer that could never come. Now it fails at once, the call is denied, the run goes on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_asked_after_end_of_input_is_refused_and_the_prompt_answered() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(
        &server,
        json!({"preset": "readwrite", "tools": {"file_edit": "ask"}}),
    );
    notes(&env, "hello world\n");
    let id = stored_session(&env, &server).await;
    server.push_all([edit_reply(), Reply::text("could not edit")]);
    let cwd = project(&env);
    let (run, sent) = batch(
        &env,
        &[
            request(
                1,
                "session/load",
                json!({"cwd": cwd, "sessionId": id, "mcpServers": []}),
            ),
            request(
                2,
                "session/prompt",
                json!({"sessionId": id, "prompt": [{"type": "text", "text": "say there"}]}),
            ),
        ],
    )
    .await;
    run.expect_code(0);
    let prompt = answer_to(&sent, 2, &run.stderr);
    assert_eq!(prompt["result"]["stopReason"], "end_turn", "{prompt}");
    assert_eq!(read(&env.workspace().join("notes.txt")), "hello world\n");
    let results = tool_contents(&chat_bodies(&server).pop().unwrap());
    assert!(
        results
            .iter()
            .any(|r| r.contains("denied") || r.contains("refused")),
        "{results:?}"
    );
}
