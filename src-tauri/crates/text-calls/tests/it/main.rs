#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
// A scenario reads top to bottom; its length is its story.
#![allow(clippy::too_many_lines)]
//! The text tool-call corpus and the reader's behaviour around it: calls found, spans,
//! stripping, and bounded work on hostile input.

mod corpus;
mod fuzz;

use paddock_text_calls::{extract_tool_calls, strip_tool_calls};
use serde_json::Value;

use corpus::{TOOLS, corpus};

#[test]
fn the_corpus_is_large_enough() {
    let cases = corpus();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let prose = cases.iter().filter(|c| c.2.is_empty()).count();
    assert!(prose >= 20, "{prose} cases that must stay prose");
}

#[test]
fn every_corpus_case_yields_exactly_the_expected_calls() {
    let mut failures = Vec::new();
    for (case, text, want) in corpus() {
        let got: Vec<(String, Value)> = extract_tool_calls(text, TOOLS)
            .into_iter()
            .map(|c| (c.name, c.input))
            .collect();
        let want: Vec<(String, Value)> = want.into_iter().map(|(n, v)| (n.to_owned(), v)).collect();
        if got != want {
            failures.push(format!(
                "{case}:\n  text: {text}\n  want: {want:?}\n  got:  {got:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn spans_point_at_the_call_text() {
    let text = "Before. {\"name\": \"glob\", \"arguments\": {\"pattern\": \"x\"}} After.";
    let calls = extract_tool_calls(text, TOOLS);
    assert_eq!(
        &text[calls[0].span.clone()],
        "{\"name\": \"glob\", \"arguments\": {\"pattern\": \"x\"}}"
    );
    assert_eq!(strip_tool_calls(text, TOOLS), "Before.  After.");
}

#[test]
fn no_known_tools_means_no_calls() {
    let none: [&str; 0] = [];
    assert!(extract_tool_calls(r#"{"name": "grep", "arguments": {}}"#, &none).is_empty());
}

#[test]
fn hostile_inputs_do_not_panic() {
    let long_braces = "{".repeat(5000);
    let long_quotes = "\"".repeat(5000);
    let inputs = [
        "",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "<tool_call>",
        "</tool_call>",
        "<think>",
        "</think>",
        "<tool_call><tool_call></tool_call>",
        "{\"name\": \"grep\", \"arguments\": {\"a\": \"\\",
        long_braces.as_str(),
        long_quotes.as_str(),
        "é{ü\"}ö[",
        "\u{0}{\u{0}}",
    ];
    for input in inputs {
        let _ = extract_tool_calls(input, TOOLS);
        let _ = strip_tool_calls(input, TOOLS);
    }
}

#[test]
fn new_shapes_are_stripped_from_the_visible_text() {
    let cases = [
        (
            "Reading it.\n<tool_call>\n<function=file_read>\n<parameter=path>\na.rs\n</parameter>\n</function>\n</tool_call>",
            "Reading it.",
        ),
        (
            r#"Searching.[TOOL_CALLS]grep[ARGS]{"pattern": "x"}"#,
            "Searching.",
        ),
        (
            r#"Listing. <|python_tag|>{"name": "glob", "parameters": {"pattern": "*"}}<|eom_id|>"#,
            "Listing.",
        ),
        (
            "Bare: <function=glob>\n<parameter=pattern>\n*\n</parameter>\n</function> done",
            "Bare:  done",
        ),
    ];
    for (text, visible) in cases {
        assert_eq!(strip_tool_calls(text, TOOLS), visible, "{text}");
    }
}

#[test]
fn huge_and_hostile_inputs_finish_quickly() {
    let call = r#"{"name": "grep", "arguments": {"pattern": "end"}}"#;
    let started = std::time::Instant::now();
    // Quadratic for a naive scan: every `{"` opens an object that never closes.
    let open_objects = r#"{""#.repeat(2 << 20);
    let _ = extract_tool_calls(&open_objects, TOOLS);
    let open_lists = "[{".repeat(1 << 20);
    let _ = extract_tool_calls(&open_lists, TOOLS);
    // Prose braces are passed over at once, so the call at the end is still found.
    let braces = format!("{}{call}", "{".repeat(4 << 20));
    assert_eq!(extract_tool_calls(&braces, TOOLS).len(), 1);
    let tags = format!("{}{call}", "<think></think><tool_call".repeat(100_000));
    let _ = extract_tool_calls(&tags, TOOLS);
    let elapsed = started.elapsed();
    assert!(
        elapsed < std::time::Duration::from_secs(20),
        "took {elapsed:?}"
    );
}
