//! The same checks over stdio and over streamable HTTP, against the real server-everything.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use paddock_core::protocol::{AgentEvent, Grant, McpServerState, ProjectSettings};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::{FnSink, GrantPolicy};
use paddock_mcp::McpOptions;
use serde_json::json;
use tokio::sync::Notify;

use crate::common::{
    Everything, Via, everything, kill9, one, registry_of, results, run_agent, run_agent_observed,
    running_tools, started, wait_for_state,
};

/// Runs a check once per transport.
macro_rules! over_both {
    ($check:ident) => {
        mod $check {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn stdio() {
                super::$check(Via::Stdio).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn http() {
                super::$check(Via::Http).await;
            }
        }
    };
}

over_both!(lists_tools);
over_both!(calls_echo_through_the_kernel_loop);
over_both!(maps_images_and_resources_to_text);
over_both!(a_denied_tool_never_runs);
over_both!(a_server_killed_mid_call_gives_an_error_result_and_a_status_change);

async fn lists_tools(via: Via) {
    let Some(js) = everything() else { return };
    let server = Everything::start(&js, via).await;
    let servers = started(
        &one("everything", server.config.clone()),
        McpOptions::default(),
    )
    .await;
    let tools = running_tools(&servers.status("everything").unwrap());
    for name in [
        "mcp__everything__echo",
        "mcp__everything__get-sum",
        "mcp__everything__get-tiny-image",
        "mcp__everything__trigger-long-running-operation",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name} missing: {tools:?}");
    }
    let echo = servers
        .tools()
        .into_iter()
        .find(|t| t.remote_name() == "echo")
        .unwrap();
    let spec = paddock_core::Tool::spec(&*echo);
    assert_eq!(spec.description, "Echoes back the input string");
    assert_eq!(spec.input_schema["type"], "object");
    assert_eq!(spec.input_schema["properties"]["message"]["type"], "string");
    servers.shutdown().await;
}

async fn calls_echo_through_the_kernel_loop(via: Via) {
    let Some(js) = everything() else { return };
    let server = Everything::start(&js, via).await;
    let servers = started(
        &one("everything", server.config.clone()),
        McpOptions::default(),
    )
    .await;
    // No preset and no allow list: MCP tools are runtime tools and are granted anyway.
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__everything__echo", json!({"message": "hi"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    assert_eq!(results(&run), vec![("Echo: hi".to_owned(), false)]);
    assert_eq!(run.result.output, "done");
    let told = &run.model.requests()[0].tools;
    assert!(told.iter().any(|t| t.name == "mcp__everything__echo"));
    // The model got the result in its next request.
    let second = &run.model.requests()[1];
    let got: Vec<&str> = second
        .messages
        .iter()
        .flat_map(|m| m.tool_results())
        .map(|r| r.content.as_str())
        .collect();
    assert_eq!(got, ["Echo: hi"]);
    servers.shutdown().await;
}

async fn maps_images_and_resources_to_text(via: Via) {
    let Some(js) = everything() else { return };
    let server = Everything::start(&js, via).await;
    let servers = started(
        &one("everything", server.config.clone()),
        McpOptions::default(),
    )
    .await;
    let run = run_agent(
        registry_of(&servers),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[
                ("mcp__everything__get-tiny-image", json!({})),
                // A string where the schema wants a number: coerced, as for built-ins.
                (
                    "mcp__everything__get-resource-reference",
                    json!({"resourceType": "Text", "resourceId": "2"}),
                ),
                ("mcp__everything__get-sum", json!({"a": 2, "b": 3})),
            ]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let r = results(&run);
    assert_eq!(r.len(), 3);
    let (image, image_err) = &r[0];
    assert!(!image_err);
    assert!(
        image.contains("Here's the image you requested:")
            && image.contains("[image: image/png, ")
            && image.contains("KB; not shown]")
            && !image.contains("iVBORw0KGgo"),
        "{image}"
    );
    let (resource, resource_err) = &r[1];
    assert!(!resource_err, "{resource}");
    assert!(
        resource.contains("[resource: <demo://resource/dynamic/text/2>"),
        "{resource}"
    );
    assert!(resource.contains("text/plain"), "{resource}");
    assert!(r[2].0.contains('5'), "{:?}", r[2]);
    servers.shutdown().await;
}

async fn a_denied_tool_never_runs(via: Via) {
    let Some(js) = everything() else { return };
    let server = Everything::start(&js, via).await;
    // The user's settings deny the tool; the host turns them into the kernel's policy.
    let denied = "mcp__everything__trigger-long-running-operation";
    let settings = ProjectSettings {
        tools: BTreeMap::from([(denied.to_owned(), Grant::Deny)]),
        mcp_servers: one("everything", server.config.clone()),
        ..ProjectSettings::default()
    };
    let grants = paddock_core::GrantPolicy::from_overrides(
        settings.preset,
        settings.tools.iter().map(|(n, g)| (n.as_str(), *g)),
    );
    assert_eq!(grants.deny, [denied]);
    let servers = started(&settings.mcp_servers, McpOptions::default()).await;
    let started_at = Instant::now();
    let run = run_agent(
        registry_of(&servers),
        grants,
        vec![
            ScriptedTurn::tools(&[
                (denied, json!({"duration": 20, "steps": 2})),
                ("mcp__everything__echo", json!({"message": "still here"})),
            ]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let r = results(&run);
    assert!(r[0].1, "the denied call must be an error result");
    assert!(r[0].0.contains("not granted"), "{}", r[0].0);
    assert_eq!(r[1], ("Echo: still here".to_owned(), false));
    // A 20 s operation that ran would have held the turn up.
    assert!(started_at.elapsed() < Duration::from_secs(10));
    let told = &run.model.requests()[0].tools;
    assert!(
        !told.iter().any(|t| t.name == denied),
        "the model was told about it"
    );
    servers.shutdown().await;
}

async fn a_server_killed_mid_call_gives_an_error_result_and_a_status_change(via: Via) {
    let Some(js) = everything() else { return };
    let server = Everything::start(&js, via).await;
    let servers = started(
        &one("everything", server.config.clone()),
        McpOptions::default(),
    )
    .await;
    let registry = registry_of(&servers);
    let pid = server.pid(&servers, "everything");
    // Kill the server once the call is on its way.
    let call_started = Arc::new(Notify::new());
    let events = {
        let call_started = call_started.clone();
        Arc::new(FnSink(move |e: AgentEvent| {
            if matches!(e, AgentEvent::ToolCallStarted { .. }) {
                call_started.notify_one();
            }
        }))
    };
    let killer = tokio::spawn(async move {
        call_started.notified().await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        kill9(pid);
    });
    let started_at = Instant::now();
    let run = run_agent_observed(
        registry.clone(),
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[(
                "mcp__everything__trigger-long-running-operation",
                json!({"duration": 30, "steps": 30}),
            )]),
            ScriptedTurn::text("done"),
        ],
        events,
    )
    .await;
    killer.await.unwrap();
    let r = results(&run);
    assert_eq!(r.len(), 1);
    assert!(r[0].1, "expected an error result, got {:?}", r[0]);
    assert!(
        started_at.elapsed() < Duration::from_secs(20),
        "the call hung"
    );

    let status = wait_for_state(&servers, "everything", Duration::from_secs(10), |s| {
        matches!(s, McpServerState::Exited { .. })
    })
    .await;
    let McpServerState::Exited { reason } = &status.state else {
        unreachable!()
    };
    let expected = match via {
        Via::Stdio => "killed by signal 9",
        Via::Http => "stopped answering",
    };
    assert!(reason.contains(expected), "{reason}");
    assert!(r[0].0.contains(expected), "{}", r[0].0);
    assert!(
        r[0].0
            .contains("went away while 'trigger-long-running-operation' was running")
    );

    // Later calls fail fast with the reason instead of hanging.
    let later = run_agent(
        registry,
        GrantPolicy::default(),
        vec![
            ScriptedTurn::tools(&[("mcp__everything__echo", json!({"message": "anyone?"}))]),
            ScriptedTurn::text("done"),
        ],
    )
    .await;
    let r = results(&later);
    assert!(r[0].1 && r[0].0.contains("is not running"), "{:?}", r[0]);
}
