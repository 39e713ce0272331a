//! The parts of a reply that decide where calls may be looked for: reasoning blocks
//! (`<think>`) and Markdown code fences, and the fence a call may be wrapped in.

use std::ops::Range;

use super::scan::Next;

/// A reasoning block. Closed blocks are never searched: a model deliberating about a call
/// has not made it. An unclosed one (the model opened `<think>` and wrote its call before
/// closing it) is searched for calls in a tool-call marker, never for bare JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Think {
    pub range: Range<usize>,
    pub closed: bool,
}

/// Reasoning blocks: `<think>...</think>` (or `<thinking>`), an unclosed opening tag
/// running to the end, and, when a reply starts inside reasoning (chat templates that put
/// the opening tag in the prompt), everything before the first closing tag.
pub(super) fn think_blocks(text: &str) -> Vec<Think> {
    // ASCII lowercasing keeps byte offsets, so spans found in `lower` index `text`.
    let lower = text.to_ascii_lowercase();
    let mut opens = Tags::new(&lower, "<think");
    let mut closes = Tags::new(&lower, "</think");
    let mut blocks = Vec::new();
    let mut from = 0;
    loop {
        let open = opens.at_or_after(from);
        match (open, closes.at_or_after(from)) {
            (_, Some((close_start, close_end)))
                if open.is_none_or(|(open_start, _)| close_start < open_start) =>
            {
                if from == 0 {
                    blocks.push(Think {
                        range: 0..close_end,
                        closed: true,
                    });
                }
                from = close_end;
            }
            (Some((open_start, open_end)), _) => match closes.at_or_after(open_end) {
                Some((_, close_end)) => {
                    blocks.push(Think {
                        range: open_start..close_end,
                        closed: true,
                    });
                    from = close_end;
                }
                None => {
                    blocks.push(Think {
                        range: open_start..text.len(),
                        closed: false,
                    });
                    break;
                }
            },
            _ => break,
        }
    }
    blocks
}

/// `<think>` / `<thinking>` tags (or their closing forms), found in one resumable pass.
struct Tags<'a> {
    text: &'a str,
    stem_len: usize,
    stems: Next<'a>,
}

impl<'a> Tags<'a> {
    fn new(text: &'a str, stem: &'a str) -> Self {
        Self {
            text,
            stem_len: stem.len(),
            stems: Next::new(text, stem),
        }
    }

    /// The next whole tag (`stem>` or `steming>`) at or after `from`: its span.
    fn at_or_after(&mut self, mut from: usize) -> Option<(usize, usize)> {
        loop {
            let at = self.stems.at_or_after(from)?;
            let rest = &self.text[at + self.stem_len..];
            if let Some(tail) = [">", "ing>"].into_iter().find(|t| rest.starts_with(t)) {
                return Some((at, at + self.stem_len + tail.len()));
            }
            from = at + 1;
        }
    }
}

/// In an unclosed reasoning block at `block`, the JSON that opens it: right after the
/// opening tag, with nothing but whitespace (or a JSON code fence's first line) between.
/// Its range runs to the block's end; `None` when the block starts with anything else.
pub(super) fn opening_call(text: &str, block: &Range<usize>) -> Option<Range<usize>> {
    let tag_end = block.start + text[block.start..block.end].find('>')? + 1;
    let mut at =
        tag_end + (text[tag_end..block.end].len() - text[tag_end..block.end].trim_start().len());
    let rest = &text[at..block.end];
    for fence in ["```json", "```"] {
        if let Some(after) = rest
            .strip_prefix(fence)
            .filter(|a| a.starts_with(['\n', '\r']))
        {
            let skipped = rest.len() - after.trim_start().len();
            at += skipped;
            break;
        }
    }
    text[at..block.end]
        .starts_with(['{', '['])
        .then_some(at..block.end)
}

/// The stretches of `0..len` outside every block in `hidden`, from `from` on.
pub(super) fn outside(from: usize, len: usize, hidden: &[Think]) -> Vec<Range<usize>> {
    let mut segments = Vec::new();
    let mut at = from;
    for h in hidden {
        if h.range.start > at {
            segments.push(at..h.range.start);
        }
        at = at.max(h.range.end);
    }
    if at < len {
        segments.push(at..len);
    }
    segments
}

/// Fence languages a call may be written in; a call-shaped example inside any other
/// fence (```python, ```bash, ```http) is code the model is showing, not a call.
const CALL_FENCES: [&str; 7] = [
    "",
    "json",
    "jsonc",
    "json5",
    "xml",
    "tool_call",
    "tool_calls",
];

/// A fenced code block that is not a call format: its span.
pub(super) fn code_fences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    // (marker byte, marker length, start, language is a call format)
    let mut open: Option<(u8, usize, usize, bool)> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start_matches(' ');
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let Some(&marker) = trimmed
            .as_bytes()
            .first()
            .filter(|b| matches!(b, b'`' | b'~'))
        else {
            continue;
        };
        let run = trimmed.bytes().take_while(|&b| b == marker).count();
        if run < 3 {
            continue;
        }
        let rest = trimmed[run..].trim();
        match open {
            Some((m, n, from, call)) if m == marker && run >= n && rest.is_empty() => {
                if !call {
                    out.push(from..at);
                }
                open = None;
            }
            Some(_) => {}
            None => {
                let lang = rest
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .to_ascii_lowercase();
                open = Some((marker, run, start, CALL_FENCES.contains(&lang.as_str())));
            }
        }
    }
    if let Some((_, _, from, false)) = open {
        out.push(from..text.len());
    }
    out
}

/// Grows a call's span over a Markdown code fence that holds nothing else.
pub(super) fn widen_to_fence(text: &str, span: Range<usize>) -> Range<usize> {
    let before = text[..span.start].trim_end();
    let after = text[span.end..].trim_start();
    let opener = ["```json", "```JSON", "```"]
        .iter()
        .find(|f| before.ends_with(*f));
    match (opener, after.starts_with("```")) {
        (Some(f), true) => {
            let start = before.len() - f.len();
            let end = text.len() - after.len() + 3;
            start..end
        }
        _ => span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(t: &str) -> Vec<(Range<usize>, bool)> {
        think_blocks(t)
            .into_iter()
            .map(|b| (b.range, b.closed))
            .collect()
    }

    #[test]
    fn think_blocks_cover_reasoning() {
        let t = "a<think>x</think>b<THINK>y";
        assert_eq!(ranges(t), vec![(1..17, true), (18..t.len(), false)]);
        assert_eq!(ranges("plan</think>answer"), vec![(0..12, true)]);
        assert_eq!(ranges("no reasoning"), vec![]);
    }

    #[test]
    fn code_fences_of_other_languages_are_found() {
        let t = "a\n```python\nx = {}\n```\n```json\n{}\n```\n  ~~~bash\nls\n";
        let fences = code_fences(t);
        assert_eq!(fences.len(), 2, "{fences:?}");
        assert_eq!(&t[fences[0].clone()], "```python\nx = {}\n```\n");
        assert_eq!(&t[fences[1].clone()], "  ~~~bash\nls\n");
        assert!(code_fences("```\n{}\n```").is_empty());
        assert!(code_fences("    ```python\nindented code\n").is_empty());
    }

    #[test]
    fn widening_takes_a_fence_that_holds_only_the_call() {
        let t = "Look:\n```json\n{}\n```\nok";
        assert_eq!(&t[widen_to_fence(t, 14..16)], "```json\n{}\n```");
        let t = "```json\n{} and more\n```";
        assert_eq!(widen_to_fence(t, 8..10), 8..10);
    }
}
