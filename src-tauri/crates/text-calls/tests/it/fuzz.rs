//! The reader on text built from the pieces real replies and hostile ones are made of
//! (every marker it knows, brackets, quotes, escapes, names near and far, multi-byte
//! characters): it never panics, and what it returns is well formed.

use paddock_text_calls::{extract_tool_calls, repair_input, strip_tool_calls};
use proptest::prelude::*;

const KNOWN: &[&str] = &["file_read", "bash", "mcp__gh__list_issues"];

const PIECES: &[&str] = &[
    "<tool_call>",
    "</tool_call>",
    "<function=",
    "</function>",
    "<parameter=",
    "</parameter>",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<|python_tag|>",
    "<think>",
    "</think>",
    "```json\n",
    "```python\n",
    "```\n",
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    "\\\"",
    ":",
    ",",
    "\n",
    " ",
    "name",
    "\"name\"",
    "\"arguments\"",
    "\"parameters\"",
    "\"input\"",
    "\"function\"",
    "\"type\"",
    "\"description\"",
    "file_read",
    "fileRead",
    "bash",
    "bsh",
    "mcp__gh__list_issues",
    "\"path\"",
    "\"a.txt\"",
    ".call(",
    "(",
    ")",
    "=",
    "'",
    "é",
    "日本",
    "🦀",
    "\u{202e}",
    "\u{feff}",
    "null",
    "true",
    "1e9",
    "{\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..120).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn the_reader_never_panics_and_its_calls_are_well_formed(text in text()) {
        for call in extract_tool_calls(&text, KNOWN) {
            prop_assert!(call.span.start <= call.span.end && call.span.end <= text.len());
            prop_assert!(text.is_char_boundary(call.span.start));
            prop_assert!(text.is_char_boundary(call.span.end));
            prop_assert!(!call.name.is_empty());
            prop_assert!(call.input.is_object(), "{:?}", call.input);
        }
        let stripped = strip_tool_calls(&text, KNOWN);
        prop_assert!(stripped.len() <= text.len() + 1);
        let _ = repair_input(&text, "bash");
    }

    #[test]
    fn arbitrary_unicode_never_panics(text in "\\PC{0,400}") {
        let _ = extract_tool_calls(&text, KNOWN);
        let _ = strip_tool_calls(&text, KNOWN);
        let _ = repair_input(&text, "file_read");
    }
}
