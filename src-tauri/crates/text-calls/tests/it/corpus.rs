//! The corpus: what small local models actually print, and what must (and must not)
//! become a tool call.

use serde_json::{Value, json};

pub const TOOLS: &[&str] = &["file_read", "grep", "glob", "bash"];

/// (case, model output, calls expected as (name, input)).
pub type Case = (&'static str, &'static str, Vec<(&'static str, Value)>);

pub fn corpus() -> Vec<Case> {
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
            "malformed JSON is a call with empty input",
            r#"{"name": "grep", "arguments": {"pattern": "x",}}"#,
            vec![("grep", json!({}))],
        ),
        (
            "malformed skipped, valid kept",
            r#"{"name": "grep" "arguments": {}} and {"name": "grep", "arguments": {"pattern": "ok"}}"#,
            vec![("grep", json!({"pattern": "ok"}))],
        ),
        (
            "truncated JSON is a call with empty input",
            r#"{"name": "grep", "arguments": {"pattern": "x"#,
            vec![("grep", json!({}))],
        ),
        (
            // Issue 52 turned this around: a real 1.5B model's whole reply was this, and the
            // run ended on it as an answer. With words around it, it stays data.
            "bare call without arguments, the whole reply, is a call",
            r#"{"name": "glob"}"#,
            vec![("glob", json!({}))],
        ),
        (
            "arguments that are not an object make a call with empty input",
            r#"{"name": "grep", "arguments": ["x"]}"#,
            vec![("grep", json!({}))],
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
        // Argument aliases and the OpenAI wrapper.
        (
            "input alias",
            r#"{"name": "grep", "input": {"pattern": "in"}}"#,
            vec![("grep", json!({"pattern": "in"}))],
        ),
        (
            "a null alias falls through to the next",
            r#"{"name": "grep", "arguments": null, "parameters": {"pattern": "p"}, "input": {"pattern": "i"}}"#,
            vec![("grep", json!({"pattern": "p"}))],
        ),
        (
            "only null arguments: a call without arguments",
            r#"{"name": "glob", "arguments": null}"#,
            vec![("glob", json!({}))],
        ),
        (
            "the wrapper's name wins over a top-level name",
            r#"{"name": "bash", "type": "function", "function": {"name": "glob", "arguments": {"pattern": "w"}}}"#,
            vec![("glob", json!({"pattern": "w"}))],
        ),
        (
            "wrapper in a tag with string arguments",
            r#"<tool_call>{"type": "function", "function": {"name": "grep", "arguments": "{\"pattern\": \"s\"}"}}</tool_call>"#,
            vec![("grep", json!({"pattern": "s"}))],
        ),
        (
            "a list of wrappers",
            r#"[{"type": "function", "function": {"name": "glob", "arguments": {"pattern": "a"}}}, {"type": "function", "function": {"name": "grep", "arguments": {"pattern": "b"}}}]"#,
            vec![
                ("glob", json!({"pattern": "a"})),
                ("grep", json!({"pattern": "b"})),
            ],
        ),
        // Qwen3-Coder XML.
        (
            "qwen3-coder xml call",
            "<tool_call>\n<function=file_read>\n<parameter=path>\nsrc/main.rs\n</parameter>\n</function>\n</tool_call>",
            vec![("file_read", json!({"path": "src/main.rs"}))],
        ),
        (
            "qwen3-coder values: text keeps its lines, JSON values become JSON",
            "<tool_call>\n<function=bash>\n<parameter=command>\nfor f in *.rs; do\n  wc -l \"$f\"\ndone\n</parameter>\n<parameter=timeout>\n30\n</parameter>\n<parameter=env>\n{\"A\": \"1\"}\n</parameter>\n<parameter=dry>\nfalse\n</parameter>\n</function>\n</tool_call>",
            vec![(
                "bash",
                json!({"command": "for f in *.rs; do\n  wc -l \"$f\"\ndone", "timeout": 30, "env": {"A": "1"}, "dry": false}),
            )],
        ),
        (
            "qwen3-coder two calls",
            "Reading both.\n<tool_call>\n<function=file_read>\n<parameter=path>\na.rs\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=file_read>\n<parameter=path>\nb.rs\n</parameter>\n</function>\n</tool_call>",
            vec![
                ("file_read", json!({"path": "a.rs"})),
                ("file_read", json!({"path": "b.rs"})),
            ],
        ),
        (
            "qwen3-coder function without the tool_call tag",
            "<function=glob>\n<parameter=pattern>\n**/*.md\n</parameter>\n</function>",
            vec![("glob", json!({"pattern": "**/*.md"}))],
        ),
        (
            "qwen3-coder cut off before its closing tags",
            "<tool_call>\n<function=grep>\n<parameter=pattern>\nfn main\n",
            vec![("grep", json!({"pattern": "fn main"}))],
        ),
        (
            "qwen3-coder function without parameters",
            "<tool_call><function=glob></function></tool_call>",
            vec![("glob", json!({}))],
        ),
        (
            "qwen3-coder ungranted function ignored",
            "<tool_call>\n<function=delete_everything>\n<parameter=path>\n/\n</parameter>\n</function>\n</tool_call>",
            vec![],
        ),
        // Mistral.
        (
            "mistral list",
            r#"[TOOL_CALLS] [{"name": "grep", "arguments": {"pattern": "m"}}]"#,
            vec![("grep", json!({"pattern": "m"}))],
        ),
        (
            "mistral list of two with ids",
            r#"[TOOL_CALLS][{"name": "glob", "arguments": {"pattern": "a"}, "id": "abc123def"}, {"name": "grep", "arguments": {"pattern": "b"}, "id": "ghi456jkl"}]"#,
            vec![
                ("glob", json!({"pattern": "a"})),
                ("grep", json!({"pattern": "b"})),
            ],
        ),
        (
            "mistral v11 name and arguments",
            r#"[TOOL_CALLS]grep{"pattern": "v11"}"#,
            vec![("grep", json!({"pattern": "v11"}))],
        ),
        (
            "mistral [ARGS] calls, two of them",
            r#"[TOOL_CALLS]glob[ARGS]{"pattern": "*.rs"}[TOOL_CALLS]grep[ARGS]{"pattern": "todo"}"#,
            vec![
                ("glob", json!({"pattern": "*.rs"})),
                ("grep", json!({"pattern": "todo"})),
            ],
        ),
        (
            "mistral [CALL_ID] call after prose",
            r#"Let me look.[TOOL_CALLS]file_read[CALL_ID]a1B2c3D4e[ARGS]{"path": "x.md"}"#,
            vec![("file_read", json!({"path": "x.md"}))],
        ),
        (
            "mistral call with broken arguments",
            r#"[TOOL_CALLS]grep[ARGS]{"pattern": }"#,
            vec![("grep", json!({}))],
        ),
        (
            "mistral ungranted name ignored",
            r#"[TOOL_CALLS]rm_rf[ARGS]{"path": "/"}"#,
            vec![],
        ),
        // Llama 3.x.
        (
            "llama python_tag JSON",
            r#"<|python_tag|>{"name": "grep", "parameters": {"pattern": "l"}}<|eom_id|>"#,
            vec![("grep", json!({"pattern": "l"}))],
        ),
        (
            "llama python_tag two calls separated by a semicolon",
            r#"<|python_tag|>{"name": "glob", "parameters": {"pattern": "a"}}; {"name": "glob", "parameters": {"pattern": "b"}}"#,
            vec![
                ("glob", json!({"pattern": "a"})),
                ("glob", json!({"pattern": "b"})),
            ],
        ),
        (
            "llama built-in call shape",
            r#"<|python_tag|>bash.call(command="ls -la", timeout=10)<|eom_id|>"#,
            vec![("bash", json!({"command": "ls -la", "timeout": 10}))],
        ),
        (
            "llama built-in call of an ungranted tool",
            r#"<|python_tag|>brave_search.call(query="weather")"#,
            vec![],
        ),
        // Unclosed reasoning.
        (
            "tag inside an unclosed think is taken",
            "<think>I need to search first.\n<tool_call>{\"name\": \"grep\", \"arguments\": {\"pattern\": \"t\"}}</tool_call>",
            vec![("grep", json!({"pattern": "t"}))],
        ),
        (
            "xml inside an unclosed think is taken",
            "<think>Reading the file.\n<tool_call>\n<function=file_read>\n<parameter=path>\nREADME.md\n</parameter>\n</function>\n</tool_call>",
            vec![("file_read", json!({"path": "README.md"}))],
        ),
        (
            "mistral call inside a closed think is ignored",
            r#"<think>[TOOL_CALLS]grep[ARGS]{"pattern": "no"}</think>Nothing to do."#,
            vec![],
        ),
        // Broken calls become calls with empty input.
        (
            "tag with arguments that are not JSON",
            r#"<tool_call>{"name": "grep", "arguments": "pattern=x"}</tool_call>"#,
            vec![("grep", json!({}))],
        ),
        (
            "tag whose JSON is missing a brace",
            r#"<tool_call>{"name": "grep", "arguments": {"pattern": "x"}</tool_call>"#,
            vec![("grep", json!({}))],
        ),
        (
            "bare call whose arguments are a number",
            r#"{"name": "glob", "arguments": 5}"#,
            vec![("glob", json!({}))],
        ),
        (
            "bare call whose argument string is not JSON",
            r#"I'll run {"name": "bash", "arguments": "ls -la"} now."#,
            vec![("bash", json!({}))],
        ),
        // Prose that must stay prose.
        (
            "JSON example in a python fence",
            "Call the API from Python:\n```python\nrequests.post(url, json={\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}})\n```\nThat returns the matches.",
            vec![],
        ),
        (
            "API example in a bash fence",
            "Try it with curl:\n```bash\ncurl -d '{\"name\": \"grep\", \"arguments\": {\"pattern\": \"x\"}}' http://localhost:8080/v1/tools\n```",
            vec![],
        ),
        (
            "a tool definition explained in a JSON fence",
            "The grep tool is defined as:\n```json\n{\"name\": \"grep\", \"description\": \"Search files\", \"parameters\": {\"type\": \"object\", \"properties\": {\"pattern\": {\"type\": \"string\"}}}}\n```",
            vec![],
        ),
        (
            "an OpenAI tools entry is a definition",
            r#"{"type": "function", "function": {"name": "glob", "description": "Find files", "parameters": {"type": "object"}}}"#,
            vec![],
        ),
        (
            "tool names in a sentence",
            "You could run grep or glob yourself, or ask me to use bash.",
            vec![],
        ),
        (
            "arguments without a name",
            r#"Call grep with {"pattern": "x"} to find it."#,
            vec![],
        ),
        (
            "<tool_call> mentioned in prose",
            "I will not emit a <tool_call> tag because no tool is needed.",
            vec![],
        ),
        (
            "marker syntaxes mentioned in prose",
            "Qwen writes <function=NAME> blocks, Mistral starts calls with [TOOL_CALLS]. and Llama uses <|python_tag|> for code.",
            vec![],
        ),
        (
            "a granted function named in prose",
            "To search, Qwen would write <function=grep> and then its parameters.",
            vec![],
        ),
        (
            "a built-in call without its tag",
            r#"In Llama's format this would be grep.call(pattern="x")."#,
            vec![],
        ),
        (
            "unbalanced braces",
            "{{{{ not json }} } { ] [ {\"name\": ",
            vec![],
        ),
        (
            "a JSON answer about a tool",
            r#"{"tool": "grep", "matches": 3, "name": "report"}"#,
            vec![],
        ),
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
        // Issue 52: the whole reply a call without arguments (missed before).
        (
            "a bare call without arguments as the whole reply",
            "  {\"name\": \"glob\"}\n",
            vec![("glob", json!({}))],
        ),
        (
            "a bare name in prose is data",
            "Use {\"name\": \"glob\"} to list files.",
            vec![],
        ),
        // Issue 41's shapes (each failed before: no call found).
        (
            "a call that opens an unclosed think",
            "<think>\n{\"name\": \"grep\", \"arguments\": {\"pattern\": \"t\"}}",
            vec![("grep", json!({"pattern": "t"}))],
        ),
        (
            "a call that opens an unclosed think, in a fence; a second one is reasoning",
            "<think>```json\n{\"name\": \"glob\", \"arguments\": {}}\n```\nthen {\"name\": \"bash\", \"arguments\": {\"command\": \"no\"}}",
            vec![("glob", json!({}))],
        ),
        (
            "bare OpenAI-style call without arguments",
            r#"{"type": "function", "function": {"name": "glob"}}"#,
            vec![("glob", json!({}))],
        ),
        (
            "bare typed call without arguments",
            r#"Listing: {"type": "function", "name": "glob"}"#,
            vec![("glob", json!({}))],
        ),
        (
            "a near-miss name is kept as written, for the answer to correct",
            r#"<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>"#,
            vec![("read_file", json!({"path": "a.txt"}))],
        ),
        (
            "a far name is not a call",
            r#"<tool_call>{"name": "fetch_url", "arguments": {"url": "x"}}</tool_call>"#,
            vec![],
        ),
    ]
}
