//! The text tool-call corpus: what small local models actually print, and what must (and
//! must not) become a tool call.

use paddock_providers::{extract_tool_calls, strip_tool_calls};
use serde_json::{Value, json};

const TOOLS: &[&str] = &["file_read", "grep", "glob", "bash"];

/// (case, model output, calls expected as (name, input)).
type Case = (&'static str, &'static str, Vec<(&'static str, Value)>);

fn corpus() -> Vec<Case> {
    vec![
        // Hermes tags.
        (
            "tag",
            r#"<tool_call>{"name": "grep", "arguments": {"pattern": "fn main"}}</tool_call>"#,
            vec![("grep", json!({"pattern": "fn main"}))],
        ),
        (
            "tag with newlines and prose",
            "I'll search.\n<tool_call>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}}\n</tool_call>\nWaiting.",
            vec![("grep", json!({"pattern": "x"}))],
        ),
        (
            "two tags",
            r#"<tool_call>{"name":"glob","arguments":{"pattern":"*.rs"}}</tool_call><tool_call>{"name":"file_read","arguments":{"path":"a.rs"}}</tool_call>"#,
            vec![
                ("glob", json!({"pattern": "*.rs"})),
                ("file_read", json!({"path": "a.rs"})),
            ],
        ),
        (
            "unclosed tag at the end",
            r#"<tool_call>{"name": "bash", "arguments": {"command": "ls"}}"#,
            vec![("bash", json!({"command": "ls"}))],
        ),
        (
            "unclosed tag followed by another",
            r#"<tool_call>{"name":"glob","arguments":{"pattern":"a"}} <tool_call>{"name":"glob","arguments":{"pattern":"b"}}</tool_call>"#,
            vec![
                ("glob", json!({"pattern": "a"})),
                ("glob", json!({"pattern": "b"})),
            ],
        ),
        (
            "tag with parameters",
            r#"<tool_call>{"name": "file_read", "parameters": {"path": "README.md"}}</tool_call>"#,
            vec![("file_read", json!({"path": "README.md"}))],
        ),
        (
            "tag with string arguments",
            r#"<tool_call>{"name": "grep", "arguments": "{\"pattern\": \"todo\"}"}</tool_call>"#,
            vec![("grep", json!({"pattern": "todo"}))],
        ),
        (
            "tag without arguments",
            r#"<tool_call>{"name": "glob"}</tool_call>"#,
            vec![("glob", json!({}))],
        ),
        (
            "tag holding a list",
            r#"<tool_call>[{"name":"grep","arguments":{"pattern":"a"}},{"name":"grep","arguments":{"pattern":"b"}}]</tool_call>"#,
            vec![
                ("grep", json!({"pattern": "a"})),
                ("grep", json!({"pattern": "b"})),
            ],
        ),
        (
            "tags win over bare JSON",
            r#"{"name": "glob", "arguments": {"pattern": "bare"}} <tool_call>{"name": "grep", "arguments": {"pattern": "tagged"}}</tool_call>"#,
            vec![("grep", json!({"pattern": "tagged"}))],
        ),
        (
            "tag with an unknown tool falls back to nothing",
            r#"<tool_call>{"name": "delete_all", "arguments": {}}</tool_call>"#,
            vec![],
        ),
        // Bare JSON.
        (
            "bare object",
            r#"{"name": "grep", "arguments": {"pattern": "TODO"}}"#,
            vec![("grep", json!({"pattern": "TODO"}))],
        ),
        (
            "bare object after prose",
            "Let me look for it: {\"name\": \"glob\", \"arguments\": {\"pattern\": \"**/*.toml\"}}",
            vec![("glob", json!({"pattern": "**/*.toml"}))],
        ),
        (
            "fenced json",
            "```json\n{\"name\": \"file_read\", \"arguments\": {\"path\": \"src/lib.rs\"}}\n```",
            vec![("file_read", json!({"path": "src/lib.rs"}))],
        ),
        (
            "OpenAI-style function wrapper",
            r#"{"type": "function", "function": {"name": "bash", "arguments": "{\"command\": \"pwd\"}"}}"#,
            vec![("bash", json!({"command": "pwd"}))],
        ),
        (
            "bare list of calls",
            r#"[{"name": "glob", "arguments": {"pattern": "*.md"}}, {"name": "grep", "parameters": {"pattern": "x"}}]"#,
            vec![
                ("glob", json!({"pattern": "*.md"})),
                ("grep", json!({"pattern": "x"})),
            ],
        ),
        (
            "several bare calls",
            "First {\"name\":\"glob\",\"arguments\":{\"pattern\":\"a\"}} then {\"name\":\"glob\",\"arguments\":{\"pattern\":\"b\"}}.",
            vec![
                ("glob", json!({"pattern": "a"})),
                ("glob", json!({"pattern": "b"})),
            ],
        ),
        (
            "nested braces inside strings",
            r#"{"name": "grep", "arguments": {"pattern": "fn \\w+\\(\\) \\{ \\}", "glob": "{a,b}.rs"}}"#,
            vec![(
                "grep",
                json!({"pattern": "fn \\w+\\(\\) \\{ \\}", "glob": "{a,b}.rs"}),
            )],
        ),
        (
            "escaped quotes inside strings",
            r#"{"name": "bash", "arguments": {"command": "echo \"}{\" done"}}"#,
            vec![("bash", json!({"command": "echo \"}{\" done"}))],
        ),
        (
            "nested objects in arguments",
            r#"{"name": "grep", "arguments": {"pattern": "x", "opts": {"case": {"insensitive": true}}}}"#,
            vec![(
                "grep",
                json!({"pattern": "x", "opts": {"case": {"insensitive": true}}}),
            )],
        ),
        (
            "unicode around and inside",
            "Voilà → {\"name\": \"file_read\", \"arguments\": {\"path\": \"notes/été.md\"}} ✓",
            vec![("file_read", json!({"path": "notes/été.md"}))],
        ),
        // Stray quotes and braces in prose.
        (
            "stray quote before the call",
            "He said \"let's check. {\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}",
            vec![("glob", json!({"pattern": "*.rs"}))],
        ),
        (
            "odd number of quotes around",
            "It's \"quoted and \"unbalanced\" {\"name\": \"grep\", \"arguments\": {\"pattern\": \"a\"}} \"",
            vec![("grep", json!({"pattern": "a"}))],
        ),
        (
            "unclosed prose brace before the call",
            "Use { carefully: {\"name\": \"glob\", \"arguments\": {\"pattern\": \"x\"}}",
            vec![("glob", json!({"pattern": "x"}))],
        ),
        (
            "prose braces that are not JSON",
            "Sets look like {a, b} and maps like {k: v}. {\"name\": \"grep\", \"arguments\": {\"pattern\": \"k\"}}",
            vec![("grep", json!({"pattern": "k"}))],
        ),
        (
            "brace with a stray quote inside prose",
            "A {weird \"thing} here, then {\"name\": \"bash\", \"arguments\": {\"command\": \"ls\"}}",
            vec![("bash", json!({"command": "ls"}))],
        ),
        // Things that must not become calls.
        (
            "unknown name ignored",
            r#"{"name": "format_disk", "arguments": {"drive": "C"}}"#,
            vec![],
        ),
        (
            "unknown name ignored, known kept",
            r#"{"name": "nope", "arguments": {}} {"name": "glob", "arguments": {"pattern": "k"}}"#,
            vec![("glob", json!({"pattern": "k"}))],
        ),
        (
            "malformed JSON skipped",
            r#"{"name": "grep", "arguments": {"pattern": "x",}}"#,
            vec![],
        ),
        (
            "malformed skipped, valid kept",
            r#"{"name": "grep" "arguments": {}} and {"name": "grep", "arguments": {"pattern": "ok"}}"#,
            vec![("grep", json!({"pattern": "ok"}))],
        ),
        (
            "truncated JSON",
            r#"{"name": "grep", "arguments": {"pattern": "x"#,
            vec![],
        ),
        (
            "bare call without arguments is not a call",
            r#"{"name": "glob"}"#,
            vec![],
        ),
        (
            "arguments that are not an object",
            r#"{"name": "grep", "arguments": ["x"]}"#,
            vec![],
        ),
        (
            "a JSON answer that is not a call",
            r#"{"answer": 42, "name": "grep"}"#,
            vec![],
        ),
        (
            "call nested inside other JSON is not top-level",
            r#"{"result": {"name": "grep", "arguments": {"pattern": "x"}}}"#,
            vec![],
        ),
        ("plain prose", "There is nothing to call here.", vec![]),
        (
            "name with spaces around",
            r#"{"name": " glob ", "arguments": {"pattern": "p"}}"#,
            vec![("glob", json!({"pattern": "p"}))],
        ),
        // Reasoning blocks.
        (
            "call inside think is ignored",
            "<think>maybe {\"name\": \"bash\", \"arguments\": {\"command\": \"rm -rf /\"}}</think>No tools needed.",
            vec![],
        ),
        (
            "call after think is kept",
            "<think>I should grep.</think>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"main\"}}",
            vec![("grep", json!({"pattern": "main"}))],
        ),
        (
            "tag inside think ignored, tag after kept",
            "<think><tool_call>{\"name\":\"bash\",\"arguments\":{\"command\":\"x\"}}</tool_call></think><tool_call>{\"name\":\"glob\",\"arguments\":{\"pattern\":\"y\"}}</tool_call>",
            vec![("glob", json!({"pattern": "y"}))],
        ),
        (
            "unclosed think hides the rest",
            "<think>planning {\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}}",
            vec![],
        ),
        (
            "reasoning that began in the prompt",
            "so I will grep {\"name\":\"bash\",\"arguments\":{\"command\":\"no\"}}</think>{\"name\":\"grep\",\"arguments\":{\"pattern\":\"yes\"}}",
            vec![("grep", json!({"pattern": "yes"}))],
        ),
        (
            "thinking tag variant",
            "<thinking>{\"name\": \"bash\", \"arguments\": {\"command\": \"no\"}}</thinking>done",
            vec![],
        ),
    ]
}

#[test]
fn the_corpus_is_large_enough() {
    assert!(corpus().len() >= 30, "{} cases", corpus().len());
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
