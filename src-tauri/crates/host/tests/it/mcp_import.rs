//! MCP entries as Claude Code, Cursor, VS Code and Cline write them load (pasted, imported
//! or in the settings file); fields none of them writes are still refused by name.

use paddock_host::mcp_import::{merge, parse};
use paddock_host::settings;
use paddock_protocol::{McpServerKind, ProjectSettings};

const CLAUDE_CODE: &str = r#"{
  "mcpServers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer ${GITHUB_TOKEN}" }
    },
    "files": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/src"],
      "env": { "LOG": "${LOG_LEVEL:-info}" },
      "timeout": 30000
    }
  }
}"#;

const CURSOR: &str = r#"{
  "mcpServers": {
    "db": { "command": "uvx", "args": ["mcp-server-sqlite"], "env": { "API_KEY": "${env:DB_KEY}" } },
    "remote": { "url": "https://example.com/mcp", "headers": { "X-Token": "${env:TOKEN}" } }
  }
}"#;

const VS_CODE: &str = r#"{
  "inputs": [{ "type": "promptString", "id": "unused", "description": "not referenced", "password": true }],
  "servers": {
    "gh": { "type": "http", "url": "https://api.githubcopilot.com/mcp/" },
    "local": { "type": "stdio", "command": "python", "args": ["server.py"], "envFile": "${workspaceFolder}/.env" }
  }
}"#;

const CLINE: &str = r#"{
  "mcpServers": {
    "search": {
      "command": "node", "args": ["/opt/search/build/index.js"],
      "env": { "API_KEY": "literal-key" },
      "disabled": false, "autoApprove": ["web_search"], "timeout": 60, "type": "stdio"
    },
    "old": { "url": "https://example.com/sse", "transportType": "sse", "disabled": true, "autoApprove": [] }
  }
}"#;

#[test]
fn the_four_tools_documented_shapes_load() {
    let c = parse(CLAUDE_CODE).unwrap();
    assert_eq!(c["github"].kind, Some(McpServerKind::Http));
    assert_eq!(
        c["github"].headers["Authorization"],
        "Bearer ${GITHUB_TOKEN}"
    );
    assert_eq!(
        c["files"].call_timeout_secs(),
        Some(30),
        "milliseconds from 10,000"
    );
    let cursor = parse(CURSOR).unwrap();
    assert_eq!(cursor["db"].env["API_KEY"], "${env:DB_KEY}");
    let vs = parse(VS_CODE).unwrap();
    assert_eq!(
        vs["local"].env_file.as_deref(),
        Some("${workspaceFolder}/.env")
    );
    assert_eq!(vs["gh"].kind, Some(McpServerKind::Http));
    let cline = parse(CLINE).unwrap();
    assert_eq!(cline["search"].auto_approve, ["web_search"]);
    assert_eq!(
        cline["search"].call_timeout_secs(),
        Some(60),
        "seconds below 10,000"
    );
    assert_eq!(cline["old"].kind, Some(McpServerKind::Sse));
    assert!(cline["old"].disabled);

    // The same entries in Paddock's own file, with the `$schema` editors add.
    for text in [CLAUDE_CODE, CURSOR, CLINE] {
        let servers: serde_json::Value = serde_json::from_str(text).unwrap();
        let file = serde_json::json!({
            "$schema": "https://example.com/paddock-settings.schema.json",
            "version": 1,
            "mcpServers": servers["mcpServers"],
        });
        let s = settings::parse(&file.to_string(), std::path::Path::new("s.json")).unwrap();
        assert!(s.schema.is_some());
        let round = serde_json::to_value(&s).unwrap();
        assert_eq!(round["$schema"], file["$schema"], "kept when saved");
    }
}

#[test]
fn what_no_tool_writes_is_refused_by_name() {
    for (text, field, words) in [
        (
            r#"{"mcpServers": {"x": {"command": "a", "alwaysAllow": ["y"]}}}"#,
            "mcpServers.x.alwaysAllow",
            "unknown field `alwaysAllow`",
        ),
        (
            r#"{"mcpServers": {}, "extra": 1}"#,
            "extra",
            "unknown top-level field",
        ),
        (
            r#"{"servers": {"gh": {"type": "http", "url": "u", "headers": {"A": "${input:tok}"}}}}"#,
            "servers.gh.headers.A",
            "VS Code prompt",
        ),
        (
            r#"{"mcpServers": {"x": {"type": "stdio", "url": "http://x"}}}"#,
            "mcpServers.x",
            "type` is stdio",
        ),
        (
            r#"{"mcpServers": {"x": {"type": "websocket", "url": "u"}}}"#,
            "mcpServers.x.type",
            "unknown variant",
        ),
        ("[1]", "mcpServers", "expected a JSON object"),
    ] {
        let err = parse(text).unwrap_err();
        assert_eq!(err.field, field, "{text}: {err}");
        assert!(err.message.contains(words), "{text}: {err}");
    }
    let err = settings::parse(
        r#"{"version": 1, "mcpServers": {"x": {"command": "a", "env": {"T": "${input:t}"}}}}"#,
        std::path::Path::new("s.json"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("`mcpServers.x.env.T`") && err.contains("VS Code prompt"),
        "{err}"
    );
}

#[test]
fn auto_approve_grants_unless_the_tools_say_otherwise() {
    let mut s: ProjectSettings = serde_json::from_value(serde_json::json!({
        "version": 1,
        "tools": {"mcp__search__delete_all": "deny"},
        "mcpServers": {"search": {"command": "node", "autoApprove": ["web_search", "delete_all"]},
                       "off": {"command": "x", "disabled": true, "autoApprove": ["t"]}}
    }))
    .unwrap();
    let policy = settings::grant_policy(&s);
    assert_eq!(policy.extra, ["mcp__search__web_search"]);
    assert_eq!(policy.deny, ["mcp__search__delete_all"]);
    s.mcp_servers
        .get_mut("search")
        .unwrap()
        .auto_approve
        .clear();
    assert!(settings::grant_policy(&s).extra.is_empty());
}

#[test]
fn merging_never_replaces_a_different_server() {
    let mut existing = parse(CURSOR).unwrap();
    let added = merge(&mut existing, parse(CLINE).unwrap()).unwrap();
    assert_eq!(added, ["old", "search"]);
    assert_eq!(
        merge(&mut existing, parse(CLINE).unwrap()).unwrap(),
        Vec::<String>::new()
    );
    let mut changed = parse(CLINE).unwrap();
    changed
        .get_mut("search")
        .unwrap()
        .args
        .push("--more".into());
    let err = merge(&mut existing, changed).unwrap_err();
    assert_eq!(err.field, "mcpServers.search");
}
