//! Drives `paddock acp` with the official ACP TypeScript SDK's client
//! (`tests/acp-fixtures/drive.mjs`, `@agentclientprotocol/sdk` from npm) and checks every
//! message Paddock sent against the protocol's published v1 JSON schema.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{Env, PADDOCK, RUN_LIMIT};

/// The fixtures folder, when node and the SDK are installed; `None` (with a note) when not,
/// a failure when `PADDOCK_REQUIRE_ACP=1`.
pub(crate) fn fixtures() -> Option<PathBuf> {
    let sdk = crate::common::npm_fixture(
        "acp-fixtures",
        "node_modules/@agentclientprotocol/sdk/package.json",
        "the ACP SDK",
        "PADDOCK_REQUIRE_ACP",
    )?;
    sdk.ancestors().nth(4).map(Path::to_path_buf)
}

/// What one step did, as the client saw it.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub result: Value,
    pub error: Value,
    pub updates: Vec<Value>,
    pub permissions: Vec<Value>,
}

impl Step {
    /// The updates of one kind.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.updates
            .iter()
            .filter(|u| u["sessionUpdate"] == kind)
            .collect()
    }

    /// The text of the chunks of one kind, joined.
    pub fn text(&self, kind: &str) -> String {
        self.of(kind)
            .iter()
            .filter_map(|u| u["content"]["text"].as_str())
            .collect()
    }
}

impl Step {
    /// The agent's answer: its message chunks without Paddock's own notes (a warning such
    /// as the first snapshot's wait comes and goes with timing).
    pub fn answer(&self) -> String {
        self.of("agent_message_chunk")
            .iter()
            .filter_map(|u| u["content"]["text"].as_str())
            .filter(|t| !t.starts_with("\n\n_Paddock: "))
            .collect()
    }
}

/// Runs the client over a fresh `paddock acp` with `steps`; returns each step (in order)
/// after checking the traffic against the schema and that the agent exited when the
/// client closed its stdin.
pub(crate) async fn drive(env: &Env, fixtures: &Path, steps: Value) -> Vec<Step> {
    drive_all(env, fixtures, steps).await.0
}

/// [`drive`], and every update of the connection in order (some come between steps).
pub(crate) async fn drive_all(env: &Env, fixtures: &Path, steps: Value) -> (Vec<Step>, Vec<Value>) {
    let trace = tempfile::NamedTempFile::new().unwrap();
    let mut cmd = env.program("node");
    cmd.arg(fixtures.join("drive.mjs"))
        .arg(steps.to_string())
        .arg(PADDOCK)
        .arg("acp")
        .env("ACP_TRACE", trace.path());
    let out = tokio::time::timeout(RUN_LIMIT, cmd.output())
        .await
        .expect("the ACP client finished in time")
        .expect("node started");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client failed: {stdout}\nstderr: {stderr}"
    );
    let mut steps = Vec::new();
    let mut exit = None;
    let mut all = Vec::new();
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line).expect("the client prints JSON lines");
        if v["step"] == "exit" {
            exit = Some(v["code"].clone());
            all = v["updates"].as_array().cloned().unwrap_or_default();
            continue;
        }
        steps.push(Step {
            result: v["result"].clone(),
            error: v["error"].clone(),
            updates: v["updates"].as_array().cloned().unwrap_or_default(),
            permissions: v["permissions"].as_array().cloned().unwrap_or_default(),
        });
    }
    assert_eq!(
        exit,
        Some(json!(0)),
        "paddock acp exits 0 when the client closes stdin; stderr: {stderr}"
    );
    check_schema(fixtures, &std::fs::read_to_string(trace.path()).unwrap());
    (steps, all)
}

/// Every line the agent sent is one JSON-RPC message valid under ACP v1's schema.
fn check_schema(fixtures: &Path, trace: &str) {
    let path = fixtures.join("node_modules/@agentclientprotocol/sdk/schema/v1/schema.json");
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let of = |def: &str| {
        let s = json!({"$ref": format!("#/$defs/{def}"), "$defs": schema["$defs"]});
        jsonschema::validator_for(&s).unwrap()
    };
    let notification = of("SessionNotification");
    let permission = of("RequestPermissionRequest");
    let responses = [
        ("protocolVersion", of("InitializeResponse")),
        ("stopReason", of("PromptResponse")),
        ("sessionId", of("NewSessionResponse")),
        ("modes", of("LoadSessionResponse")),
        ("sessions", of("ListSessionsResponse")),
    ];
    let error = of("Error");
    let mut seen = 0;
    for line in trace.lines() {
        let m: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert_eq!(m["jsonrpc"], "2.0", "{line}");
        let (validator, body) = match (m["method"].as_str(), &m["result"]) {
            (Some("session/update"), _) => (&notification, &m["params"]),
            (Some("session/request_permission"), _) => (&permission, &m["params"]),
            (Some(other), _) => panic!("an agent method ACP does not define: {other}"),
            (None, Value::Null) if m.get("error").is_some() => (&error, &m["error"]),
            (None, result) => match responses.iter().find(|(k, _)| result.get(*k).is_some()) {
                Some((_, v)) => (v, result),
                None => continue,
            },
        };
        let problems: Vec<String> = validator.iter_errors(body).map(|e| e.to_string()).collect();
        assert!(problems.is_empty(), "{line}\nbreaks ACP v1: {problems:?}");
        seen += 1;
    }
    assert!(seen > 0, "nothing was checked");
}

/// The session file's id is the one the client was given.
pub(crate) fn session_id(new: &Step) -> String {
    new.result["sessionId"].as_str().unwrap().to_owned()
}
