use std::path::Path;
use std::sync::Arc;

use paddock_acp::permission::{self, answer};
use paddock_acp::prompt::read;
use paddock_acp::updates::Updates;
use paddock_protocol::{
    AgentEvent, ApprovalDecision, ContextInfo, Cost, PromptAttachment, ToolCall,
};
use serde_json::json;

#[test]
fn a_link_into_the_workspace_is_attached_and_any_other_stays_text() {
    let ws = Path::new("/home/u/proj/.agent-workspace");
    let prompt = read(
        &json!([
            {"type": "text", "text": "look at"},
            {"type": "resource_link", "uri": "file:///home/u/proj/.agent-workspace/src/my%20file.rs", "name": "my file.rs"},
            {"type": "resource_link", "uri": "file:///home/u/.ssh/id_rsa", "name": "id_rsa"},
            {"type": "resource_link", "uri": "file:///home/u/proj/.agent-workspace/../secret", "name": "up"},
            {"type": "resource", "resource": {"uri": "file:///x/notes.md", "text": "the notes"}},
        ]),
        ws,
    )
    .unwrap();
    assert_eq!(
        prompt.attachments,
        vec![PromptAttachment::Mention {
            path: "src/my file.rs".into()
        }]
    );
    assert!(prompt.text.starts_with("look at"));
    assert!(prompt.text.contains("[id_rsa](file:///home/u/.ssh/id_rsa)"));
    assert!(
        prompt
            .text
            .contains("[up](file:///home/u/proj/.agent-workspace/../secret)")
    );
    assert!(
        prompt
            .text
            .contains("<context uri=\"file:///x/notes.md\">\nthe notes\n</context>")
    );
}

#[test]
fn audio_and_untyped_blocks_are_refused_by_name() {
    let ws = Path::new("/w");
    let e = read(
        &json!([{"type": "audio", "data": "", "mimeType": "audio/wav"}]),
        ws,
    )
    .unwrap_err();
    assert!(e.contains("audio"), "{e}");
    assert!(read(&json!([{"text": "x"}]), ws).is_err());
    assert!(read(&json!("just text"), ws).is_err());
}

#[test]
fn an_image_becomes_an_image_attachment() {
    let p = read(
        &json!([{"type": "image", "data": "iVBOR", "mimeType": "image/png"}]),
        Path::new("/w"),
    )
    .unwrap();
    assert!(
        matches!(&p.attachments[0], PromptAttachment::Image { media_type, .. } if media_type == "image/png")
    );
    assert!(!p.text.is_empty());
}

#[test]
fn permission_answers_map_to_decisions_and_anything_else_denies() {
    let pick = |id: &str| json!({"outcome": {"outcome": "selected", "optionId": id}});
    assert_eq!(
        answer(&pick(permission::ONCE)).decision,
        ApprovalDecision::Once
    );
    assert_eq!(
        answer(&pick(permission::SESSION)).decision,
        ApprovalDecision::Session
    );
    let rule = answer(&pick(permission::RULE));
    assert!(rule.save_rules && rule.decision == ApprovalDecision::Once);
    for denied in [
        pick(permission::REJECT),
        pick("made-up"),
        json!({"outcome": {"outcome": "cancelled"}}),
        json!(null),
    ] {
        let a = answer(&denied);
        assert_eq!(a.decision, ApprovalDecision::Deny, "{denied}");
        assert!(!a.save_rules);
    }
    // No rule offered when none could allow calls like this one.
    assert!(
        !permission::options("bash", &[])
            .iter()
            .any(|o| o["optionId"] == permission::RULE)
    );
}

#[test]
fn usage_carries_the_sessions_cost_only_when_every_price_is_known() {
    let mut u = Updates::new(Path::new("/w"), Some(0.25));
    let context = AgentEvent::Context(ContextInfo {
        used: 1000,
        window: Some(8000),
        instructions: 10,
        tools: 10,
        history: 980,
    });
    let first = u.of(&context);
    assert_eq!(first[0]["used"], 1000);
    assert_eq!(first[0]["size"], 8000);
    assert_eq!(first[0]["cost"]["amount"], 0.25);
    let usage = |usd: f64, complete: bool| AgentEvent::Usage {
        turn: Default::default(),
        total: Default::default(),
        turn_cost: None,
        total_cost: Some(Cost {
            usd,
            complete,
            local: false,
        }),
    };
    assert_eq!(u.of(&usage(0.5, true))[0]["cost"]["amount"], 0.75);
    assert!(u.of(&usage(0.5, false))[0].get("cost").is_none());
    // No window known: no usage update at all (ACP's size is required).
    let mut blind = Updates::new(Path::new("/w"), None);
    let no_window = AgentEvent::Context(ContextInfo {
        used: 1,
        window: None,
        instructions: 0,
        tools: 0,
        history: 1,
    });
    assert!(blind.of(&no_window).is_empty());
}

#[test]
fn a_call_names_its_file_absolutely_and_its_kind() {
    let u = Updates::new(Path::new("/w"), None);
    let call = ToolCall {
        id: "c1".into(),
        name: "file_read".into(),
        input: json!({"path": "src/a.rs"}),
        parsed_from_text: false,
    };
    let v = u.tool_call(&Arc::new(call), "src/a.rs");
    assert_eq!(v["kind"], "read");
    assert_eq!(v["title"], "file_read src/a.rs");
    assert_eq!(v["locations"][0]["path"], "/w/src/a.rs");
}

#[test]
fn an_agents_diffs_are_kept_per_call_across_updates_the_latest_word_per_file() {
    use paddock_acp::client::{Diff, Events, diffs_in};
    let mut events = Events::default();
    // Claude Code's order: the call announced without content, the diff in an update, the
    // completion without content.
    events.of(
        &json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Preparing file…",
        "kind": "edit", "status": "pending", "content": []}),
    );
    let diff = |text: &str| {
        json!([{"type": "diff", "path": "/w/a.txt", "oldText": null, "newText": text},
        {"type": "content", "content": {"type": "text", "text": "not a diff"}}])
    };
    events.of(
        &json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "content": diff("one\n")}),
    );
    events.of(
        &json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "content": diff("two\n")}),
    );
    let done = events.of(
        &json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
    );
    assert!(matches!(&done[..], [AgentEvent::ToolCallFinished { id, .. }] if id == "t1"));
    let want = vec![Diff {
        path: "/w/a.txt".into(),
        old: None,
        new: "two\n".into(),
    }];
    assert_eq!(events.diffs("t1"), want.as_slice());
    assert!(events.diffs("unknown").is_empty());
    // A diff item missing its new text is no diff.
    assert!(diffs_in(&json!([{"type": "diff", "path": "/w/a.txt"}])).is_empty());
}

#[test]
fn text_after_a_call_is_the_next_turn_and_the_answers_usage_counts_cached_input() {
    use paddock_acp::client::{Events, answer_usage};
    let mut events = Events::default();
    let say = |t: &str| json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": t}});
    let turns = |evs: &[AgentEvent]| -> Vec<u32> {
        evs.iter()
            .filter_map(|e| match e {
                AgentEvent::TurnStarted { turn } => Some(*turn),
                _ => None,
            })
            .collect()
    };
    assert_eq!(turns(&events.of(&say("Writing."))), [1]);
    assert_eq!(turns(&events.of(&say(" More."))), Vec::<u32>::new());
    events.of(&json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Write", "status": "pending"}));
    events.of(&json!({"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "Read", "status": "pending"}));
    assert_eq!(turns(&events.of(&say("Done."))), [2]);
    assert_eq!(events.turns(), 2);
    assert_eq!(events.text, "Writing. More.\n\nDone.");
    // A call before any text opens the first turn.
    let mut quiet = Events::default();
    let first =
        quiet.of(&json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read"}));
    assert!(matches!(first[0], AgentEvent::TurnStarted { turn: 1 }));

    let usage = answer_usage(
        &json!({"stopReason": "end_turn", "usage": {"inputTokens": 10,
        "outputTokens": 3, "cachedReadTokens": 100, "cachedWriteTokens": 5, "totalTokens": 118}}),
    );
    assert_eq!((usage.input_tokens, usage.output_tokens), (115, 3));
    assert_eq!(
        (usage.cache_read_tokens, usage.cache_write_tokens),
        (100, 5)
    );
    assert_eq!(
        answer_usage(&json!({"stopReason": "end_turn"})).input_tokens,
        0
    );
}

#[test]
fn a_prompt_goes_out_as_blocks_within_what_the_agent_takes() {
    use paddock_acp::outgoing::{Takes, blocks};
    use paddock_protocol::{ContentBlock, ImageBlock, Mention, Message, Role};
    let image = ImageBlock {
        media_type: "image/png".into(),
        sha256: "ab".repeat(32),
        name: Some("shot.png".into()),
        width: 1,
        height: 1,
        tool_call_id: None,
        data: Some(Arc::from(&b"\x89PNG"[..])),
    };
    let file = |folder: bool| Mention {
        path: "src/a.rs".into(),
        folder,
        text: "fn a() {}".into(),
        cut: None,
    };
    let message = |content: Vec<ContentBlock>| Message {
        role: Role::User,
        content,
    };
    let ws = Path::new("/w");
    let all = Takes {
        images: true,
        embedded: true,
    };
    let sent = blocks(
        &message(vec![
            ContentBlock::Text {
                text: "look".into(),
            },
            ContentBlock::Mention(file(false)),
            ContentBlock::Image(image.clone()),
        ]),
        ws,
        all,
    )
    .unwrap();
    assert_eq!(sent[0], json!({"type": "text", "text": "look"}));
    assert_eq!(sent[1]["type"], "resource");
    assert_eq!(sent[1]["resource"]["uri"], "file:///w/src/a.rs");
    assert_eq!(sent[1]["resource"]["text"], "fn a() {}");
    assert_eq!(
        sent[2],
        json!({"type": "image", "mimeType": "image/png", "data": "iVBORw=="})
    );
    // Without embedded context, and for a folder: a link.
    let links = blocks(
        &message(vec![ContentBlock::Mention(file(false))]),
        ws,
        Takes::default(),
    )
    .unwrap();
    assert_eq!(
        links[0],
        json!({"type": "resource_link", "uri": "file:///w/src/a.rs", "name": "src/a.rs"})
    );
    let folder = blocks(&message(vec![ContentBlock::Mention(file(true))]), ws, all).unwrap();
    assert_eq!(folder[0]["type"], "resource_link");
    // An image for an agent that takes none: said, nothing sent.
    let err = blocks(
        &message(vec![ContentBlock::Image(image)]),
        ws,
        Takes::default(),
    )
    .unwrap_err();
    assert!(
        err.contains("takes no images") && err.contains("shot.png"),
        "{err}"
    );
    assert_eq!(
        Takes::of(&json!({"agentCapabilities": {"promptCapabilities": {"image": true}}})),
        Takes {
            images: true,
            embedded: false
        }
    );
}
