//! Rules that cannot be compiled are refused with an error naming the key and the index
//! the way the settings file does (`rules.bash[3]: …`).

use paddock_rules::{Action, RuleError, RuleSpec, Rules, specs_from_json};
use serde_json::json;

use crate::common::spec;

fn json_error(rules: serde_json::Value) -> String {
    specs_from_json(&rules).expect_err("invalid").to_string()
}

fn compile_error(specs: &[RuleSpec]) -> String {
    Rules::compile(specs).expect_err("invalid").to_string()
}

#[test]
fn settings_shape_errors_name_the_key_and_index() {
    assert_eq!(
        json_error(json!(["bash"])),
        "rules: expected an object of tool names to lists of rules"
    );
    assert_eq!(
        json_error(json!({"bash": {"allow": "ls"}})),
        "rules.bash: expected a list of rules"
    );
    assert_eq!(
        json_error(
            json!({"bash": [{"allow": "ls"}, {"allow": "pwd"}, {"allow": "id"}, {"alow": "rm"}]})
        ),
        "rules.bash[3]: unknown key \"alow\" (expected allow, ask or deny)"
    );
    assert_eq!(
        json_error(json!({"bash": [{"allow": "ls", "deny": "ls"}]})),
        "rules.bash[0]: has both allow and deny; a rule has exactly one action"
    );
    assert_eq!(
        json_error(json!({"bash": [{}]})),
        "rules.bash[0]: no action (expected one of allow, ask, deny)"
    );
    assert_eq!(
        json_error(json!({"file_write": [{"allow": "src/**"}, {"deny": 3}]})),
        "rules.file_write[1]: the value of \"deny\" must be a string pattern"
    );
    assert_eq!(
        json_error(json!({"bash": ["git status"]})),
        "rules.bash[0]: expected an object like {\"allow\": \"pattern\"}"
    );
}

#[test]
fn settings_keep_order_within_a_key() {
    let specs = specs_from_json(&json!({
        "bash": [{"allow": "git status"}, {"deny": "rm -rf *"}, {"ask": "npm run *"}],
        "mcp__github__*": [{"allow": "*"}]
    }))
    .expect("valid");
    let bash: Vec<(Action, &str)> = specs
        .iter()
        .filter(|s| s.tool == "bash")
        .map(|s| (s.action, s.pattern.as_str()))
        .collect();
    assert_eq!(
        bash,
        vec![
            (Action::Allow, "git status"),
            (Action::Deny, "rm -rf *"),
            (Action::Ask, "npm run *")
        ]
    );
    assert!(Rules::compile(&specs).is_ok());
}

#[test]
fn bad_patterns_name_the_rule() {
    let bash = |p: &str| spec("bash", Action::Allow, p);
    assert_eq!(
        compile_error(&[bash("ls"), bash("pwd"), bash("")]),
        "rules.bash[2]: the pattern is empty"
    );
    assert_eq!(
        compile_error(&[bash("   ")]),
        "rules.bash[0]: the pattern is empty"
    );
    assert_eq!(
        compile_error(&[bash("ls"), bash("git commit -m 'oops")]),
        "rules.bash[1]: a single quote is not closed"
    );
    assert_eq!(
        compile_error(&[bash("git \"x")]),
        "rules.bash[0]: a double quote is not closed"
    );
    assert_eq!(
        compile_error(&[bash("ls \\")]),
        "rules.bash[0]: the pattern ends with a lone backslash"
    );
    assert!(
        compile_error(&[bash("git\u{7}status")])
            .starts_with("rules.bash[0]: the pattern has a control character")
    );
    assert!(compile_error(&[bash(&"a ".repeat(65))]).contains("more than 64 words"));
    assert!(compile_error(&[bash(&"a".repeat(5000))]).contains("over 4096 bytes"));
}

#[test]
fn index_counts_within_each_key() {
    let specs = [
        spec("bash", Action::Allow, "ls"),
        spec("file_write", Action::Allow, "src/**"),
        spec("bash", Action::Allow, "pwd"),
        spec("file_write", Action::Deny, "/etc/**"),
    ];
    assert_eq!(
        compile_error(&specs),
        "rules.file_write[1]: path patterns are relative to the workspace root (drop the leading /)"
    );
}

#[test]
fn bad_path_patterns() {
    let fw = |p: &str| spec("file_write", Action::Allow, p);
    assert_eq!(
        compile_error(&[fw("../secrets/**")]),
        "rules.file_write[0]: a path pattern cannot climb out of the workspace with .."
    );
    assert!(
        compile_error(&[fw("src/[a")]).starts_with("rules.file_write[0]: the glob does not parse")
    );
    assert_eq!(
        compile_error(&[fw("!")]),
        "rules.file_write[0]: the pattern is empty"
    );
    assert_eq!(
        compile_error(&[spec("grep", Action::Allow, "")]),
        "rules.grep[0]: the pattern is empty"
    );
}

#[test]
fn other_tools_take_only_star() {
    assert_eq!(
        compile_error(&[spec("mcp__github__create_issue", Action::Allow, "repo:x")]),
        "rules.mcp__github__create_issue[0]: argument rules are only for bash and the file tools; use \"*\" (any call), not \"repo:x\""
    );
    assert!(
        compile_error(&[spec("mcp__github__*", Action::Deny, "delete*")])
            .contains("argument rules are only for bash and the file tools")
    );
    assert!(Rules::compile(&[spec("mcp__github__*", Action::Deny, "*")]).is_ok());
    assert!(Rules::compile(&[spec("delegate_to_agent", Action::Ask, "*")]).is_ok());
}

#[test]
fn bad_tool_keys() {
    assert_eq!(
        compile_error(&[spec("mcp__*__x", Action::Allow, "*")]),
        "rules.mcp__*__x: `*` is only allowed at the end of a tool name"
    );
    assert_eq!(
        compile_error(&[spec("", Action::Allow, "*")]),
        "rules.: the tool name is empty"
    );
    assert_eq!(
        compile_error(&[spec("my tool", Action::Allow, "*")]),
        "rules.my tool: the tool name has spaces or control characters"
    );
}

#[test]
fn too_many_rules() {
    let specs: Vec<RuleSpec> = (0..paddock_rules::MAX_RULES + 1)
        .map(|i| spec("bash", Action::Allow, &format!("cmd{i}")))
        .collect();
    assert!(matches!(
        Rules::compile(&specs),
        Err(RuleError::Shape { .. })
    ));
    assert!(Rules::compile(&specs[..paddock_rules::MAX_RULES]).is_ok());
}

#[test]
fn empty_rules() {
    let rules = Rules::compile(&[]).expect("empty is fine");
    assert!(rules.is_empty());
    assert!(
        !Rules::compile(&[spec("bash", Action::Allow, "ls")])
            .expect("ok")
            .is_empty()
    );
}
