use paddock_protocol::{AgentEvent, ContentBlock, Message, RewindInfo, Role};
use serde_json::{Value, json};

use crate::LoadedSession;

/// The whole session as one JSON document: header, messages, events.
pub fn to_json(session: &LoadedSession) -> Value {
    json!({
        "header": session.header,
        "messages": session.messages,
        "events": session.events,
        "cost": crate::cost::session_cost(&session.events),
    })
}

/// A readable transcript: prompts, answers, tool calls with their input and output.
pub fn to_markdown(session: &LoadedSession) -> String {
    let mut out = header_lines(session);
    // Rewinds are not part of a run: each goes after the runs that came before it.
    let mut rewinds = rewinds_by_run(session).into_iter().peekable();
    let mut prompts = 0;
    for message in &session.messages {
        if is_prompt(message) {
            while let Some((_, info)) = rewinds.next_if(|(after, _)| *after <= prompts) {
                out.push_str(&rewind_note(info));
            }
            prompts += 1;
        }
        // Paddock's own words to the model ride with the tool results (a loop warning).
        let from_paddock = message.tool_results().next().is_some();
        for block in &message.content {
            out.push_str(&block_text(session, message.role, block, from_paddock));
        }
    }
    for (_, info) in rewinds {
        out.push_str(&rewind_note(info));
    }
    out.push_str(&runs_lines(session));
    out
}

/// The title and what the session ran on.
fn header_lines(session: &LoadedSession) -> String {
    let h = &session.header;
    format!(
        "# {}\n\n- project: `{}`\n- model: {}{}\n- started: {}\n- session: {}\n",
        h.title,
        h.project,
        h.model,
        h.provider
            .as_deref()
            .map(|p| format!(" ({p})"))
            .unwrap_or_default(),
        h.created,
        h.id
    )
}

/// Each rewind with the number of runs that came before it.
fn rewinds_by_run(session: &LoadedSession) -> Vec<(usize, &RewindInfo)> {
    let mut runs = 0;
    let mut rewinds = Vec::new();
    for event in &session.events {
        match event {
            AgentEvent::RunStarted { .. } => runs += 1,
            AgentEvent::Rewound(info) => rewinds.push((runs, info)),
            _ => {}
        }
    }
    rewinds
}

/// One block of a message as the transcript shows it (empty for what it leaves out).
fn block_text(
    session: &LoadedSession,
    role: Role,
    block: &ContentBlock,
    from_paddock: bool,
) -> String {
    match (role, block) {
        (Role::User, ContentBlock::Text { text }) if from_paddock => {
            format!("\n**Paddock, to the model:** {}\n", text.trim_end())
        }
        (Role::User, ContentBlock::Text { text }) => format!("\n## You\n\n{}\n", text.trim_end()),
        (Role::Assistant, ContentBlock::Text { text }) if !text.trim().is_empty() => {
            format!("\n## Agent\n\n{}\n", text.trim_end())
        }
        (_, ContentBlock::ToolCall(call)) => {
            let input = serde_json::to_string_pretty(&call.input)
                .unwrap_or_else(|_| call.input.to_string());
            let origin = if call.parsed_from_text {
                " (parsed from text)"
            } else {
                ""
            };
            format!(
                "\n**Tool call** `{}`{origin}\n\n{}\n",
                call.name,
                fenced("json", &input)
            )
        }
        (_, ContentBlock::ToolResult(result)) => {
            let label = if result.is_error {
                "**Result (error)**"
            } else {
                "**Result**"
            };
            format!("\n{label}\n\n{}\n", fenced("", &result.content))
        }
        // The image's file beside the session (`<id>.images/`), named by its digest.
        (_, ContentBlock::Image(image)) => {
            let dir = std::path::PathBuf::from(format!("{}.images", session.header.id));
            let file = crate::store::images::image_file(&dir, image)
                .map_or_else(|| image.sha256.clone(), |p| p.display().to_string());
            format!("\n![{}]({file})\n", image.label())
        }
        _ => String::new(),
    }
}

/// How each run ended and what it cost, and the session's total.
fn runs_lines(session: &LoadedSession) -> String {
    let mut out = String::new();
    let costs = crate::cost::run_costs(&session.events);
    let finished: Vec<String> = session
        .events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::RunFinished {
                exit, turns, usage, ..
            } => Some((exit, turns, usage)),
            _ => None,
        })
        .zip(&costs)
        .map(|((exit, turns, usage), cost)| {
            format!(
                "- {} after {turns} turn(s), {} tokens in, {} out, {}",
                exit.as_str(),
                usage.input_tokens,
                usage.output_tokens,
                cost.describe()
            )
        })
        .collect();
    if !finished.is_empty() {
        out.push_str("\n---\n\nRuns:\n\n");
        out.push_str(&finished.join("\n"));
        out.push('\n');
    }
    if let Some(total) = crate::cost::total(&costs) {
        out.push_str(&format!("\nCost: {}\n", total.describe()));
    }
    out
}

/// Writes an export to `path`, readable by the user only when it is a new file (a
/// transcript can hold what the agent read: keys in a .env, say), as the sessions are.
pub fn write_export(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = crate::private::private_file();
    options.write(true).create(true);
    // Never through a link at the final name (a repository can commit one), and never
    // truncating a FIFO or device open: opened first, checked, then cut.
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
    );
    let mut file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    file.set_len(0)?;
    file.write_all(text.as_bytes())
}

/// A message the user typed: text, no tool results.
fn is_prompt(message: &Message) -> bool {
    message.role == Role::User
        && message.tool_results().next().is_none()
        && message
            .content
            .iter()
            .any(|b| matches!(b, ContentBlock::Text { .. }))
}

/// Where a rewind went and what it did, between the runs it came between.
fn rewind_note(info: &RewindInfo) -> String {
    let what = match (info.files, info.conversation) {
        (true, true) => "the files and the conversation",
        (true, false) => "the files",
        _ => "the conversation",
    };
    let text = if info.undoes.is_some() {
        format!("The last rewind was undone: {what} came back as they were before it.")
    } else {
        let to = match info.turn {
            0 => format!("before prompt {}", info.prompt),
            t => format!("before turn {t} of prompt {}", info.prompt),
        };
        let aside = if info.conversation {
            " What the conversation said after that point is set aside: kept above, no longer \
             part of it."
        } else {
            ""
        };
        format!("Rewound {what} to {to}.{aside}")
    };
    format!("\n---\n\n*{text}*\n")
}

/// A code fence long enough that the content cannot close it.
fn fenced(lang: &str, content: &str) -> String {
    let mut ticks = 3;
    while content.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    format!("{fence}{lang}\n{}\n{fence}", content.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{ExitReason, SessionHeader, TokenUsage, ToolCall, ToolResult};
    use serde_json::json;

    /// The desktop writes exports here: a link at the name (a repository can commit one) is
    /// refused, not followed; a FIFO is refused at once. Before: the victim was overwritten.
    #[cfg(unix)]
    #[test]
    fn an_export_never_writes_through_a_link_or_into_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, "precious").unwrap();
        let link = dir.path().join("export.md");
        std::os::unix::fs::symlink(&victim, &link).unwrap();
        assert!(write_export(&link, "transcript").is_err());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let fifo = dir.path().join("fifo");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        assert!(write_export(&fifo, "transcript").is_err());
        let plain = dir.path().join("plain.md");
        std::fs::write(&plain, "a much longer old text").unwrap();
        write_export(&plain, "new").unwrap();
        assert_eq!(std::fs::read_to_string(&plain).unwrap(), "new");
    }

    fn run(events: &mut Vec<AgentEvent>) {
        events.push(AgentEvent::RunStarted {
            agent: "main".into(),
            model: "m".into(),
            max_turns: 100,
            pricing: None,
        });
        events.push(AgentEvent::RunFinished {
            exit: ExitReason::EndTurn,
            turns: 1,
            usage: TokenUsage::default(),
            cost: Some(paddock_protocol::Cost::NONE),
        });
    }

    #[test]
    fn rewinds_sit_between_their_runs_and_paddock_notes_are_not_the_user() {
        let call = ToolCall {
            id: "c1".into(),
            name: "glob".into(),
            input: json!({"pattern": "*"}),
            parsed_from_text: false,
        };
        let results = Message {
            role: Role::User,
            content: vec![
                ContentBlock::ToolResult(ToolResult {
                    tool_call_id: "c1".into(),
                    content: "a.txt".into(),
                    is_error: false,
                }),
                ContentBlock::Text {
                    text: "You seem to be stuck.".into(),
                },
            ],
        };
        let messages = vec![
            Message::user_text("one"),
            Message::assistant_text("first"),
            Message::user_text("two"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolCall(call.into())],
            },
            results,
            Message::assistant_text("second"),
            Message::user_text("three"),
            Message::assistant_text("third"),
        ];
        let mut events = Vec::new();
        run(&mut events);
        run(&mut events);
        events.push(AgentEvent::Rewound(RewindInfo {
            id: "r1".into(),
            prompt: 2,
            turn: 0,
            files: false,
            conversation: true,
            messages: 2,
            before: String::new(),
            workspace: String::new(),
            undoes: None,
            changed: Vec::new(),
        }));
        run(&mut events);
        let session = LoadedSession {
            header: SessionHeader {
                format: 1,
                id: "s1".into(),
                project: "/p".into(),
                provider: None,
                model: "m".into(),
                created: "today".into(),
                title: "one".into(),
            },
            history: Vec::new(),
            messages,
            events,
            points: Vec::new(),
            last_rewind: None,
            last_compaction: None,
            warnings: Vec::new(),
        };
        let md = to_markdown(&session);
        let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("no {s:?} in\n{md}"));
        let note = at("*Rewound the conversation to before prompt 2.");
        assert!(at("second") < note && note < at("## You\n\nthree"), "{md}");
        assert!(md.contains("**Paddock, to the model:** You seem to be stuck."));
        assert!(!md.contains("## You\n\nYou seem"), "{md}");
    }
}
