//! Making room in the conversation: the start of the history is replaced by a summary the
//! model writes, with the user's own messages kept verbatim in it; recent turns stay as they
//! were and every tool call keeps its result. The same [`apply`] rebuilds the history when a
//! session is read back, so a compaction can be undone or its summary edited.

use futures_util::StreamExt;
use paddock_protocol::{
    CompactionInfo, CompactionReason, ContentBlock, ContextInfo, Message, Role, TokenUsage,
    ToolSpec,
};
use tokio_util::sync::CancellationToken;

use crate::model::{Model, ModelError, ModelEvent, ModelRequest};

/// Characters per token in every estimate here (no vendor tokenizer is at hand; this errs on
/// the large side for English and code).
pub const CHARS_PER_TOKEN: usize = 4;
/// Tokens counted for each message's framing.
const MESSAGE_OVERHEAD: usize = 4;
/// Compact when a request would pass this share of the window, unless configured otherwise.
pub const DEFAULT_THRESHOLD_PERCENT: u8 = 80;
/// The recent part kept verbatim: at most this share of the window.
pub const KEEP_RECENT_PERCENT: u8 = 30;
/// A tool result longer than this is cut when shown to the summarizer.
const RESULT_CHARS_FOR_SUMMARY: usize = 1_500;
/// The summarizer's answer, at most.
const SUMMARY_MAX_TOKENS: u32 = 2_000;
/// An older part smaller than this is not worth a model call: no summary is shorter.
const MIN_SUMMARIZED_TOKENS: u32 = 64;
/// Opens the message that holds the summary (and how it is recognised).
pub const SUMMARY_HEADER: &str = "[Earlier conversation, compacted]";
const USER_WORDS: &str = "\nThe user's messages so far, word for word:\n";
const OPEN: &str = "<user-message>\n";
const CLOSE: &str = "\n</user-message>\n";

const SUMMARIZER_SYSTEM: &str = "You compact the earlier part of a conversation between a user \
and a coding agent so that the agent can continue in less space. Write a concise summary in \
plain text: the task and its goal, decisions made, files read or changed and their state, \
commands run and what they showed, errors met and how they were handled, and what remains to \
do. Keep names, paths, numbers and identifiers exact. Do not repeat the user's messages: they \
are kept word for word beside your summary. Answer with the summary only.";

/// When and how to compact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionConfig {
    /// Compact on the way past the threshold (off: only when asked, or on overflow).
    pub auto: bool,
    pub threshold_percent: u8,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            auto: true,
            threshold_percent: DEFAULT_THRESHOLD_PERCENT,
        }
    }
}

/// Estimated tokens of `chars` characters.
pub fn tokens_of_chars(chars: usize) -> u32 {
    u32::try_from(chars.div_ceil(CHARS_PER_TOKEN)).unwrap_or(u32::MAX)
}

/// Tokens one image is counted as: Anthropic's figure for an image at its 1568 px / 1.15 MP
/// recommendation, about 1,600 (platform.claude.com/docs/en/build-with-claude/vision).
pub const IMAGE_TOKENS: u32 = 1_600;

/// Estimated tokens of one message.
pub fn message_tokens(message: &Message) -> u32 {
    let chars: usize = message
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text { text } => text.len(),
            ContentBlock::Thinking { thinking, .. } => thinking.len(),
            ContentBlock::RedactedThinking { data } => data.len(),
            ContentBlock::ToolCall(c) => c.name.len() + json_len(&c.input) + c.id.len(),
            ContentBlock::ToolResult(r) => r.content.len() + r.tool_call_id.len(),
            ContentBlock::Mention(m) => m.text.len() + m.path.len(),
            ContentBlock::Image(_) => IMAGE_TOKENS as usize * CHARS_PER_TOKEN,
        })
        .sum();
    tokens_of_chars(chars + MESSAGE_OVERHEAD * CHARS_PER_TOKEN)
}

/// The length of a value's JSON text, without building the text.
fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// The history's estimate, kept as the history grows: earlier messages are counted once,
/// the last one again each time (tool results may be merged into it). A shorter history
/// (compacted, rewound) is counted afresh.
#[derive(Debug, Clone, Default)]
pub struct HistoryTally {
    /// Messages counted before the last one seen, and their tokens.
    settled: usize,
    settled_tokens: u32,
}

impl HistoryTally {
    pub fn tokens(&mut self, messages: &[Message]) -> u32 {
        if messages.len() <= self.settled {
            *self = Self::default();
        }
        let last = messages.len().saturating_sub(1);
        for m in &messages[self.settled..last] {
            self.settled_tokens = self.settled_tokens.saturating_add(message_tokens(m));
        }
        self.settled = self.settled.max(last);
        let tail = messages.last().map_or(0, message_tokens);
        self.settled_tokens.saturating_add(tail)
    }
}

pub fn history_tokens(messages: &[Message]) -> u32 {
    messages
        .iter()
        .map(message_tokens)
        .fold(0u32, u32::saturating_add)
}

/// The size of a request, by part.
pub fn context_of(
    system: Option<&str>,
    tools: &[ToolSpec],
    messages: &[Message],
    window: Option<u32>,
) -> ContextInfo {
    context_with(system, tools, history_tokens(messages), window)
}

/// [`context_of`] with the history's estimate already known (the runner's [`HistoryTally`]).
pub fn context_with(
    system: Option<&str>,
    tools: &[ToolSpec],
    history: u32,
    window: Option<u32>,
) -> ContextInfo {
    let instructions = tokens_of_chars(system.map_or(0, str::len));
    let tools = tokens_of_chars(
        tools
            .iter()
            .map(|t| t.name.len() + t.description.len() + json_len(&t.input_schema))
            .sum(),
    );
    ContextInfo {
        used: instructions.saturating_add(tools).saturating_add(history),
        window,
        instructions,
        tools,
        history,
    }
}

/// Where the kept part starts: the earliest message such that the messages from it on fit in
/// `keep_tokens`, and that starts a turn (an assistant message, or a user message that is not
/// only tool results), so every kept call keeps its result. At least one message is replaced
/// and at least the last turn is kept; `None` when there is nothing to compact.
pub fn cut_point(messages: &[Message], keep_tokens: u32) -> Option<usize> {
    let starts_turn = |m: &Message| match m.role {
        Role::Assistant => true,
        Role::User => !m
            .content
            .iter()
            .all(|b| matches!(b, ContentBlock::ToolResult(_))),
    };
    let mut kept = 0u32;
    let mut cut = None;
    for i in (1..messages.len()).rev() {
        kept = kept.saturating_add(message_tokens(&messages[i]));
        if starts_turn(&messages[i]) {
            if kept > keep_tokens && cut.is_some() {
                break;
            }
            cut = Some(i);
        }
    }
    // Replacing only a compaction message by itself makes no room.
    cut.filter(|&n| !(n == 1 && is_summary(&messages[0])))
}

/// Whether a message is a compaction's summary message.
pub fn is_summary(message: &Message) -> bool {
    matches!(message.content.first(), Some(ContentBlock::Text { text }) if text.starts_with(SUMMARY_HEADER))
}

/// The text that stands for `replaced`: the summary, then the user's own messages word for
/// word (an earlier compaction's list is carried over, not summarized).
pub fn summary_text(summary: &str, replaced: &[Message]) -> String {
    let mut text = format!("{SUMMARY_HEADER}\n{}\n", summary.trim());
    let prompts: Vec<String> = replaced.iter().flat_map(user_messages).collect();
    if !prompts.is_empty() {
        text.push_str(USER_WORDS);
        for p in &prompts {
            text.push_str(OPEN);
            text.push_str(p);
            text.push_str(CLOSE);
        }
    }
    text
}

/// The user's own words in a message: text blocks of a user message; for an earlier
/// summary, the messages it listed.
fn user_messages(message: &Message) -> Vec<String> {
    if message.role != Role::User {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    for block in &message.content {
        let text = match block {
            ContentBlock::Text { text } => text,
            // The user's image is named where their words are kept; its bytes go.
            ContentBlock::Image(image) if image.tool_call_id.is_none() => {
                match out.last_mut() {
                    Some(last) => {
                        last.push(' ');
                        last.push_str(&image.label());
                    }
                    None => out.push(image.label()),
                }
                continue;
            }
            _ => continue,
        };
        match text
            .strip_prefix(SUMMARY_HEADER)
            .and_then(|t| t.split_once(USER_WORDS))
        {
            Some((_, mut list)) => {
                while let Some(rest) = list.strip_prefix(OPEN) {
                    let Some((words, after)) = rest.split_once(CLOSE) else {
                        break;
                    };
                    out.push(words.to_owned());
                    list = after;
                }
            }
            None if text.starts_with(SUMMARY_HEADER) => {}
            None => out.push(text.clone()),
        }
    }
    out
}

/// The history after a compaction that replaced its first `replaced` messages with
/// `summary`. The summary joins the first kept message when that is the user's (vendors
/// want turns to alternate), else it opens the history on its own.
pub fn apply(history: &[Message], replaced: usize, summary: &str) -> Vec<Message> {
    let replaced = replaced.min(history.len());
    let block = ContentBlock::Text {
        text: summary_text(summary, &history[..replaced]),
    };
    let mut out = Vec::with_capacity(history.len() - replaced + 1);
    match history.get(replaced) {
        Some(first) if first.role == Role::User => {
            let mut first = first.clone();
            first.content.insert(0, block);
            out.push(first);
            out.extend_from_slice(&history[replaced + 1..]);
        }
        _ => {
            out.push(Message {
                role: Role::User,
                content: vec![block],
            });
            out.extend_from_slice(&history[replaced..]);
        }
    }
    out
}

/// A compaction worked out: the new history and what to record.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    pub history: Vec<Message>,
    pub info: CompactionInfo,
    /// Tokens the summarizer used.
    pub usage: TokenUsage,
}

/// Why a compaction could not be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompactError {
    #[error("the conversation is too short to compact")]
    NothingToCompact,
    #[error("the model could not summarize the conversation: {0}")]
    Model(#[from] ModelError),
    #[error("compaction was cancelled")]
    Cancelled,
    /// The summary came out no shorter than what it replaced; the history is left as it was.
    #[error(
        "a summary would not make the conversation shorter (about {before} tokens before, \
         {after} after); what fills the window is the recent part"
    )]
    NoGain {
        before: u32,
        after: u32,
        /// Tokens the summarizer used all the same.
        usage: TokenUsage,
    },
}

/// Compacts `history` with `model`: the older part is summarized (in chunks that fit the
/// window), the recent part (up to [`KEEP_RECENT_PERCENT`] of the window) kept.
pub async fn compact(
    model: &dyn Model,
    model_name: &str,
    history: &[Message],
    window: Option<u32>,
    reason: CompactionReason,
    cancel: &CancellationToken,
) -> Result<Compacted, CompactError> {
    let before = history_tokens(history);
    // Keep about a third of what there is, and never more than a share of the window.
    let keep = match window {
        Some(w) => (w / 100 * u32::from(KEEP_RECENT_PERCENT)).min(before / 3),
        None => before / 3,
    };
    let cut = cut_point(history, keep).ok_or(CompactError::NothingToCompact)?;
    if history_tokens(&history[..cut]) < MIN_SUMMARIZED_TOKENS {
        return Err(CompactError::NothingToCompact);
    }
    let budget = window.map_or(usize::MAX, |w| {
        (w as usize / 2).saturating_mul(CHARS_PER_TOKEN)
    });
    let mut summary = String::new();
    let mut usage = TokenUsage::default();
    for chunk in chunks(&history[..cut], budget) {
        let (text, used) = summarize(model, model_name, &summary, &chunk, window, cancel).await?;
        summary = text;
        usage += used;
    }
    let compacted = apply(history, cut, &summary);
    let after = history_tokens(&compacted);
    if after >= before {
        return Err(CompactError::NoGain {
            before,
            after,
            usage,
        });
    }
    let info = CompactionInfo {
        id: compaction_id(),
        reason,
        replaced: u32::try_from(cut).unwrap_or(u32::MAX),
        kept_turns: u32::try_from(
            history[cut..]
                .iter()
                .filter(|m| m.role == Role::Assistant)
                .count(),
        )
        .unwrap_or(u32::MAX),
        before_tokens: before,
        after_tokens: after,
        summary,
    };
    Ok(Compacted {
        history: compacted,
        info,
        usage,
    })
}

/// The older part as text, in pieces of at most `budget` characters (a piece is never empty).
fn chunks(messages: &[Message], budget: usize) -> Vec<String> {
    let mut out = vec![String::new()];
    for m in messages {
        let text = render(m);
        let last = out.last_mut().map_or(0, |s| s.len());
        if last > 0 && last + text.len() > budget {
            out.push(String::new());
        }
        if let Some(current) = out.last_mut() {
            // A single message over the budget is cut: its end matters less than the rest.
            current.push_str(&cut_chars(&text, budget));
        }
    }
    out
}

fn render(m: &Message) -> String {
    let who = match m.role {
        Role::User => "User",
        Role::Assistant => "Agent",
    };
    let mut out = String::new();
    for block in &m.content {
        match block {
            ContentBlock::Text { text } => out.push_str(&format!("{who}: {text}\n")),
            ContentBlock::ToolCall(c) => {
                out.push_str(&format!("Agent called {}({})\n", c.name, c.input));
            }
            ContentBlock::ToolResult(r) => out.push_str(&format!(
                "Result{}: {}\n",
                if r.is_error { " (error)" } else { "" },
                cut_chars(&r.content, RESULT_CHARS_FOR_SUMMARY)
            )),
            ContentBlock::Mention(m) => out.push_str(&format!(
                "{who} attached {}: {}\n",
                m.path,
                cut_chars(&m.text, RESULT_CHARS_FOR_SUMMARY)
            )),
            // The summary names an image, never its bytes.
            ContentBlock::Image(image) => {
                out.push_str(&format!("{who} attached {}\n", image.label()));
            }
            ContentBlock::Thinking { .. } | ContentBlock::RedactedThinking { .. } => {}
        }
    }
    out
}

fn cut_chars(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} […cut]", &text[..end])
}

async fn summarize(
    model: &dyn Model,
    model_name: &str,
    earlier: &str,
    chunk: &str,
    window: Option<u32>,
    cancel: &CancellationToken,
) -> Result<(String, TokenUsage), CompactError> {
    let mut ask = String::new();
    if !earlier.is_empty() {
        ask.push_str(&format!(
            "Summary of what came before this part:\n{earlier}\n\n"
        ));
    }
    ask.push_str(&format!(
        "The conversation to summarize:\n{chunk}\nWrite the summary now."
    ));
    let messages = [Message::user_text(ask)];
    let max_output = window.map_or(SUMMARY_MAX_TOKENS, |w| SUMMARY_MAX_TOKENS.min(w / 8));
    let mut stream = model.stream(&ModelRequest {
        model: model_name,
        system: Some(SUMMARIZER_SYSTEM),
        messages: &messages,
        tools: &[],
        max_output_tokens: Some(max_output.max(256)),
    });
    let mut text = String::new();
    let mut usage = TokenUsage::default();
    loop {
        let next = tokio::select! {
            next = stream.next() => next,
            () = cancel.cancelled() => return Err(CompactError::Cancelled),
        };
        match next {
            None => break,
            Some(Ok(ModelEvent::TextDelta(t))) => text.push_str(&t),
            Some(Ok(ModelEvent::Usage(u))) => usage += u,
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e.into()),
        }
    }
    if text.trim().is_empty() {
        return Err(CompactError::Model(ModelError::new(
            paddock_protocol::ErrorKind::InvalidResponse,
            "the summary came back empty",
        )));
    }
    Ok((text.trim().to_owned(), usage))
}

fn compaction_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("compaction-{nanos:x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tally_equals_a_full_count_as_the_history_grows_merges_and_shrinks() {
        let call = |n: u64| {
            ContentBlock::ToolCall(
                paddock_protocol::ToolCall {
                    id: format!("c{n}"),
                    name: "bash".into(),
                    input: serde_json::json!({"command": "x".repeat(n as usize)}),
                    parsed_from_text: false,
                }
                .into(),
            )
        };
        let mut tally = HistoryTally::default();
        let mut history = vec![Message::user_text("go")];
        assert_eq!(tally.tokens(&history), history_tokens(&history));
        for n in 0..40u64 {
            history.push(Message {
                role: Role::Assistant,
                content: vec![call(n), call(n * 7)],
            });
            assert_eq!(
                tally.tokens(&history),
                history_tokens(&history),
                "append {n}"
            );
            // Results merged into the last message after it was counted.
            if let Some(last) = history.last_mut() {
                last.content.push(ContentBlock::Text {
                    text: "y".repeat(n as usize * 13),
                });
            }
            assert_eq!(
                tally.tokens(&history),
                history_tokens(&history),
                "merge {n}"
            );
        }
        history.truncate(5);
        assert_eq!(tally.tokens(&history), history_tokens(&history), "shrunk");
        assert_eq!(
            json_len(&serde_json::json!({"a": [1, "b"]})),
            r#"{"a":[1,"b"]}"#.len()
        );
    }

    #[test]
    fn the_users_words_survive_nested_compactions() {
        let history = vec![
            Message::user_text("first ask\n  with two lines "),
            Message::assistant_text("ok"),
            Message::assistant_text("more"),
        ];
        let once = apply(&history, 2, "one");
        let text = once[0].text();
        assert!(
            text.contains("<user-message>\nfirst ask\n  with two lines \n</user-message>"),
            "{text}"
        );
        let mut longer = once.clone();
        longer.push(Message::user_text("second ask"));
        longer.push(Message::assistant_text("fine"));
        let twice = apply(&longer, 3, "two");
        let text = twice[0].text();
        assert!(text.contains("first ask\n  with two lines "), "{text}");
        assert!(text.contains("second ask"), "{text}");
        assert!(!text.contains("one"), "the old summary is replaced: {text}");
    }
}
