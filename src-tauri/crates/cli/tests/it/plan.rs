//! The plan (`todo_write`): granted by every preset, told to the model, printed on stderr,
//! emitted and kept as a `plan` event.

use paddock_fake_model::{FakeServer, Reply};
use paddock_protocol::{AgentEvent, PlanStatus};
use serde_json::json;

use crate::common::{Env, chat_bodies};

fn replies() -> Vec<Reply> {
    vec![
        Reply::tool_call(
            "todo_write",
            json!({"todos": [
                {"content": "Read the code", "status": "in_progress", "activeForm": "Reading the code"},
                {"content": "Fix the bug", "status": "pending"},
                {"content": "Run the tests", "status": "pending"}
            ]}),
        ),
        Reply::tool_call(
            "todo_write",
            json!({"todos": [
                {"content": "Read the code", "status": "completed"},
                {"content": "Fix the bug", "status": "in_progress", "activeForm": "Fixing the bug"},
                {"content": "Run the tests", "status": "pending"}
            ]}),
        ),
        Reply::text("Halfway there."),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_is_granted_by_the_readonly_preset_and_emitted_as_it_changes() {
    let server = FakeServer::start().await.unwrap();
    server.push_all(replies());
    let env = Env::new(&server, json!({"preset": "readonly"}));
    std::fs::create_dir_all(env.workspace()).unwrap();

    let run = env.run(&["exec", "--json", "Fix the bug"]).await;
    run.expect_code(0);
    let out = run.json();
    let plans: Vec<_> = out
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Plan(plan) => Some(plan.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(plans.len(), 2, "{:?}", out.events);
    assert_eq!(plans[0].progress(), (0, 3));
    assert_eq!(plans[1].progress(), (1, 3));
    assert_eq!(plans[1].items[1].status, PlanStatus::InProgress);
    assert_eq!(
        plans[1].items[1].active_form.as_deref(),
        Some("Fixing the bug")
    );
    // Kept in the session, so a reopened session shows the plan where it stood.
    let stored = env.load(&run.session_id());
    assert!(stored.events.contains(&AgentEvent::Plan(plans[1].clone())));

    // The model was offered the tool and told when to use it.
    let body = &chat_bodies(&server)[0];
    let tools: Vec<&str> = body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(tools.contains(&"todo_write"), "{tools:?}");
    let system = body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("todo_write: for work of three or more steps"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_is_shown_on_stderr_and_a_bad_one_is_the_models_to_fix() {
    let server = FakeServer::start().await.unwrap();
    let mut script = replies();
    script.insert(
        0,
        Reply::tool_call(
            "todo_write",
            json!({"todos": [{"content": "  ", "status": "pending"}]}),
        ),
    );
    server.push_all(script);
    let env = Env::new(&server, json!({"preset": "readonly"}));
    std::fs::create_dir_all(env.workspace()).unwrap();

    let run = env.run(&["exec", "Fix the bug"]).await;
    run.expect_code(0);
    let stderr = &run.stderr;
    assert!(
        stderr.contains(
            "plan (1 of 3 done):\n  [x] Read the code\n  [>] Fixing the bug\n  [ ] Run the tests"
        ),
        "{stderr}"
    );
    // The empty step came back to the model as its error, and nothing was shown for it.
    let second = &chat_bodies(&server)[1];
    let results = crate::common::tool_contents(second);
    assert!(
        results.iter().any(|r| r.contains("step 1 has no content")),
        "{results:?}"
    );
    assert_eq!(stderr.matches("plan (").count(), 2, "{stderr}");
}
