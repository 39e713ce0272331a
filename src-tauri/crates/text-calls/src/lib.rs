//! Recovers tool calls that a model printed as text instead of emitting them natively, as
//! small local models (and servers started without a tool-call parser) often do.
//!
//! Calls in a marker a chat template defines come first: Hermes `<tool_call>` tags (with
//! JSON, or Qwen3-Coder's `<function=...>` XML), bare Qwen3-Coder `<function=...>`
//! blocks, Mistral's `[TOOL_CALLS]` (a JSON list, or `name[ARGS]{...}`) and Llama 3's
//! `<|python_tag|>` (JSON, or `name.call(k="v")`). Without any, top-level JSON objects
//! (or arrays of them) found by a string-aware bracket scan are read as calls when they
//! name their arguments (`arguments`, `parameters` or `input`, also inside an OpenAI
//! `{"type": "function", "function": {...}}` wrapper).
//!
//! Only calls naming a known (granted) tool are kept. A call whose arguments are not an
//! object or do not parse is still a call, with `{}` as its input, so the model gets a
//! validation error it can fix instead of the run ending on a "final answer" that was a
//! broken call; in bare JSON such a call counts only when no well-formed call was found.
//! Closed `<think>` blocks are never searched; an unclosed one is searched for marked
//! calls. JSON in a code fence of another language (```python, ```bash) is an example,
//! not a call; so is a tool definition (it has a `description`).

mod envelope;
mod markers;
mod regions;
mod repair;
mod scan;
mod xml;

use std::ops::Range;

use serde_json::Value;

use envelope::{Shape, calls_in};
use regions::Think;
use scan::{Budget, Piece};

pub use repair::repair_input;

/// One call found in a reply's text.
#[derive(Debug, Clone, PartialEq)]
pub struct TextToolCall {
    pub name: String,
    pub input: Value,
    /// Where the call is written in the text (the whole tag for marked calls).
    pub span: Range<usize>,
    /// The call (or its arguments) as written, when the arguments could not be read:
    /// `input` is then `{}`. [`repair_input`] may still read a call that was only cut off.
    pub unparsed: Option<String>,
}

/// A reply longer than this is searched in its last `MAX_SCAN_BYTES` only: calls end a
/// reply, and the search must stay fast on whatever a model produces.
pub const MAX_SCAN_BYTES: usize = 512 * 1024;

/// Bytes the bracket scan may visit for one reply (see [`scan::Budget`]): ample for any
/// real reply, a bound for hostile ones.
const MAX_SCAN_STEPS: usize = 32 * MAX_SCAN_BYTES;

/// A call and how it was found.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    name: String,
    input: Value,
    span: Range<usize>,
    shape: Shape,
    /// Where the unreadable call (or its arguments) is written, for a broken call.
    raw: Option<Range<usize>>,
}

impl Found {
    /// A call; a broken `shape` is written at `span`.
    fn new(name: String, input: Value, span: Range<usize>, shape: Shape) -> Self {
        let raw = (shape == Shape::Broken).then(|| span.clone());
        Self {
            name,
            input,
            span,
            shape,
            raw,
        }
    }

    /// A call whose arguments, written at `raw`, could not be read.
    fn broken(name: String, span: Range<usize>, raw: Range<usize>) -> Self {
        Self {
            name,
            input: Value::Object(serde_json::Map::new()),
            span,
            shape: Shape::Broken,
            raw: Some(raw),
        }
    }

    /// The same call, its unreadable part written at `raw`.
    fn written_at(mut self, raw: Range<usize>) -> Self {
        if self.shape == Shape::Broken {
            self.raw = Some(raw);
        }
        self
    }
}

/// Whether `name` is taken as a call's tool: one of `known`, or a near miss of one
/// (`read_file` for `file_read`), which is kept under its own name so the answer can say
/// which tool was meant (see [`paddock_protocol::near_miss`]).
pub(crate) fn accepts(known: &[&str], name: &str) -> bool {
    known.contains(&name) || paddock_protocol::near_miss(name, known.iter().copied()).is_some()
}

/// What one extraction looks at.
struct Scope<'a> {
    text: &'a str,
    known: &'a [&'a str],
    /// Where searching starts (see [`MAX_SCAN_BYTES`]).
    from: usize,
    thinks: Vec<Think>,
    code: Vec<Range<usize>>,
}

impl Scope<'_> {
    /// Whether a marked call may start at `at`: not in a closed reasoning block and not
    /// in a code fence of another language.
    fn allowed(&self, at: usize) -> bool {
        at >= self.from
            && !self
                .thinks
                .iter()
                .any(|t| t.closed && t.range.contains(&at))
            && !self.code.iter().any(|c| c.contains(&at))
    }
}

/// Finds the tool calls written in `text` that name one of `known`.
pub fn extract_tool_calls<S: AsRef<str>>(text: &str, known: &[S]) -> Vec<TextToolCall> {
    let known: Vec<&str> = known.iter().map(AsRef::as_ref).collect();
    find(text, &known)
        .into_iter()
        .map(|f| TextToolCall {
            name: f.name,
            input: f.input,
            span: f.span,
            unparsed: f.raw.and_then(|r| text.get(r)).map(str::to_owned),
        })
        .collect()
}

/// `text` without the calls [`extract_tool_calls`] finds: what the model "said" besides them.
pub fn strip_tool_calls<S: AsRef<str>>(text: &str, known: &[S]) -> String {
    let mut spans: Vec<Range<usize>> = extract_tool_calls(text, known)
        .into_iter()
        .map(|c| regions::widen_to_fence(text, c.span))
        .collect();
    spans.sort_by_key(|s| s.start);
    spans.dedup();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for span in spans {
        if span.start >= at {
            out.push_str(&text[at..span.start]);
            at = span.end;
        }
    }
    out.push_str(&text[at..]);
    out.trim().to_owned()
}

fn find(text: &str, known: &[&str]) -> Vec<Found> {
    if known.is_empty() || text.is_empty() {
        return Vec::new();
    }
    let mut from = text.len().saturating_sub(MAX_SCAN_BYTES);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let scope = Scope {
        text,
        known,
        from,
        thinks: regions::think_blocks(text),
        code: regions::code_fences(text),
    };
    let mut budget = Budget::new(MAX_SCAN_STEPS);
    let mut marked = markers::all(&scope, &mut budget);
    if !marked.is_empty() {
        marked.sort_by_key(|f| f.span.start);
        return marked;
    }
    let (whole, broken): (Vec<Found>, Vec<Found>) = bare_json(&scope, &mut budget)
        .into_iter()
        .partition(|f| f.shape == Shape::Whole);
    if whole.is_empty() { broken } else { whole }
}

/// Calls written as plain JSON in the visible text (outside reasoning and code fences),
/// and one that opens an unclosed reasoning block (the model opened `<think>` and went
/// straight to its call, with nothing to deliberate; JSON after words of reasoning stays
/// reasoning).
fn bare_json(scope: &Scope<'_>, budget: &mut Budget) -> Vec<Found> {
    let mut out = Vec::new();
    // (where to look, whether only a value that starts there counts)
    let mut segments: Vec<(Range<usize>, bool)> =
        regions::outside(scope.from, scope.text.len(), &scope.thinks)
            .into_iter()
            .map(|s| (s, false))
            .collect();
    segments.extend(
        scope
            .thinks
            .iter()
            .filter(|t| !t.closed && t.range.start >= scope.from)
            .filter_map(|t| regions::opening_call(scope.text, &t.range))
            .map(|s| (s, true)),
    );
    for (segment, opening) in segments {
        let start = segment.start;
        for piece in scan::json_values(scope.text, segment, scope.known, false, budget) {
            let at = match &piece {
                Piece::Value(span, _) | Piece::Broken(span, _) => span.start,
            };
            if opening && at != start {
                break;
            }
            let (span, calls) = match piece {
                // A value that is the whole reply and names nothing but a tool is a call even
                // without arguments (a small model's `{"name": "glob"}`): the tool then says
                // what is missing. A JSON answer with other keys stays an answer.
                Piece::Value(span, v) => {
                    let whole = scope.text[..span.start].trim().is_empty()
                        && scope.text[span.end..].trim().is_empty();
                    let only_a_name = v.as_object().is_some_and(|o| {
                        o.keys()
                            .all(|k| matches!(k.as_str(), "name" | "type" | "id"))
                    });
                    (span, calls_in(&v, scope.known, whole && only_a_name))
                }
                Piece::Broken(span, name) => (span, vec![(name, Value::Null, Shape::Broken)]),
            };
            if scope.code.iter().any(|c| c.contains(&span.start)) {
                continue;
            }
            for (name, input, shape) in calls {
                out.push(match shape {
                    Shape::Whole => Found::new(name, input, span.clone(), shape),
                    Shape::Broken => Found::broken(name, span.clone(), span.clone()),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strips_calls_and_their_fences() {
        let t = "Let me look.\n```json\n{\"name\": \"grep\", \"arguments\": {\"p\": 1}}\n```\n";
        assert_eq!(strip_tool_calls(t, &["grep"]), "Let me look.");
        let t = "ok <tool_call>{\"name\":\"grep\",\"arguments\":{}}</tool_call> done";
        assert_eq!(strip_tool_calls(t, &["grep"]), "ok  done");
        let calls = extract_tool_calls(t, &["grep"]);
        assert_eq!(calls[0].input, json!({}));
    }

    #[test]
    fn only_the_tail_of_a_huge_reply_is_searched() {
        let call = "{\"name\": \"grep\", \"arguments\": {\"p\": 1}}";
        let early = format!("{call}{}", "x".repeat(MAX_SCAN_BYTES));
        assert!(extract_tool_calls(&early, &["grep"]).is_empty());
        let late = format!("{}é{call}", "x".repeat(MAX_SCAN_BYTES));
        assert_eq!(extract_tool_calls(&late, &["grep"]).len(), 1);
    }
}
