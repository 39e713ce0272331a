//! Nested instruction files: given once, with the first call that touches a file beneath
//! them; never read through a symlink; the project root's own file is left to the system
//! prompt.

use std::sync::Arc;

use paddock_core::protocol::Message;
use paddock_core::tool::Told;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::tools_support::{context, env_at};

async fn text(kit: &crate::tools_support::Kit, tool: &str, input: Value) -> String {
    let out = kit
        .registry
        .get(tool)
        .unwrap()
        .call(&input, &kit.ctx)
        .await
        .unwrap();
    assert!(!out.is_error(), "{}", out.content);
    out.content.into_string()
}

#[tokio::test]
async fn nested_agents_md_is_given_once_with_the_first_touch() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    std::fs::write(project.join("AGENTS.md"), "ROOT RULES").unwrap();
    std::fs::create_dir_all(project.join("crates/core/src")).unwrap();
    std::fs::write(project.join("crates/AGENTS.md"), "CRATES RULES").unwrap();
    std::fs::write(project.join("crates/core/AGENTS.md"), "CORE RULES").unwrap();
    std::fs::write(project.join("crates/core/src/lib.rs"), "fn x() {}\n").unwrap();
    std::fs::write(project.join("top.txt"), "top\n").unwrap();
    let mut env = env_at(&project);
    env.project_root = Some(project.clone());
    let kit = context(env, CancellationToken::new());

    let top = text(&kit, "file_read", json!({"path": "top.txt"})).await;
    assert!(
        !top.contains("ROOT RULES"),
        "the root file is the system prompt's"
    );
    let first = text(&kit, "file_read", json!({"path": "crates/core/src/lib.rs"})).await;
    assert!(
        first.contains("CRATES RULES") && first.contains("CORE RULES"),
        "{first}"
    );
    assert!(
        first.find("CRATES RULES") < first.find("CORE RULES"),
        "outermost first"
    );
    let again = text(
        &kit,
        "file_edit",
        json!({"path": "crates/core/src/lib.rs", "old_string": "x", "new_string": "y"}),
    )
    .await;
    assert!(!again.contains("RULES"), "once per conversation: {again}");

    // A resumed conversation that was told already is not told again.
    let told = Told::from_history(&[Message {
        role: paddock_core::protocol::Role::User,
        content: vec![paddock_core::protocol::ContentBlock::ToolResult(
            paddock_core::protocol::ToolResult {
                tool_call_id: "c".into(),
                content: first.clone().into(),
                is_error: false,
            },
        )],
    }]);
    let mut resumed = context(env_at(&project), CancellationToken::new());
    resumed.ctx.told = Arc::new(told);
    let later = text(
        &resumed,
        "file_read",
        json!({"path": "crates/core/src/lib.rs"}),
    )
    .await;
    assert!(!later.contains("CORE RULES"), "{later}");
}

#[tokio::test]
async fn a_symlinked_instructions_file_is_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "OUTSIDE SECRET").unwrap();
    let ws = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(ws.join("sub")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), ws.join("sub/AGENTS.md")).unwrap();
    std::fs::write(ws.join("sub/a.txt"), "a\n").unwrap();
    let kit = context(env_at(&ws), CancellationToken::new());
    let read = text(&kit, "file_read", json!({"path": "sub/a.txt"})).await;
    assert!(!read.contains("OUTSIDE SECRET"), "{read}");
    // Proof the link reads when followed: the protection is in the open, not the content.
    assert_eq!(
        std::fs::read_to_string(ws.join("sub/AGENTS.md")).unwrap(),
        "OUTSIDE SECRET"
    );
}
