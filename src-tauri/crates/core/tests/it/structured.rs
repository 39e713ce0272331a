//! Structured output: extraction strategies, validation, one retry.

use paddock_core::protocol::{ExitReason, Role};
use paddock_core::scripted::ScriptedTurn;
use paddock_core::structured::{OutputError, extract_json, parse_and_validate};
use serde_json::{Value, json};

use paddock_core::testing::*;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "score": {"type": "integer", "minimum": 0, "maximum": 10}
        },
        "required": ["title", "score"]
    })
}

#[test]
fn each_extraction_strategy_finds_the_json() {
    assert_eq!(extract_json("  {\"a\": 1}  "), Some(json!({"a": 1})));
    assert_eq!(
        extract_json("Here:\n```\n{\"wrong\": 0}\n```\nand\n```json\n{\"a\": 2}\n```"),
        Some(json!({"a": 2}))
    );
    assert_eq!(
        extract_json("Sure!\n```\n{\"a\": 3}\n```\nDone."),
        Some(json!({"a": 3}))
    );
    assert_eq!(
        extract_json("The result is {\"a\": {\"b\": 4}} as requested."),
        Some(json!({"a": {"b": 4}}))
    );
    assert_eq!(extract_json("List: [1, 2, 3]."), Some(json!([1, 2, 3])));
    assert_eq!(extract_json("no json here"), None);
    assert_eq!(extract_json("broken {\"a\": } text"), None);
}

#[test]
fn validation_reports_where_and_why() {
    let err = parse_and_validate("{\"title\": 5, \"score\": 11}", &schema()).unwrap_err();
    let OutputError::Invalid(errors) = err else {
        panic!("expected Invalid")
    };
    assert_eq!(errors.len(), 2);
    assert!(errors.iter().any(|e| e.contains("/title")), "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("/score")), "{errors:?}");
    assert_eq!(
        parse_and_validate("nothing", &schema()),
        Err(OutputError::NoJson)
    );
    assert!(matches!(
        parse_and_validate("{}", &json!({"type": 12})),
        Err(OutputError::BadSchema(_))
    ));
}

fn structured_config() -> paddock_core::AgentConfig {
    let mut c = config_allowing(&[]);
    c.system_prompt = Some("You rate things.".into());
    c.output_schema = Some(schema());
    c
}

#[tokio::test(start_paused = true)]
async fn valid_answer_succeeds_and_the_instruction_is_in_the_system_prompt() {
    let mut h = harness(
        structured_config(),
        vec![ScriptedTurn::text(
            "```json\n{\"title\": \"Dune\", \"score\": 9}\n```",
        )],
    );
    let r = h.agent.run("rate Dune").await;
    assert!(r.success);
    assert_eq!(r.structured, Some(json!({"title": "Dune", "score": 9})));
    let system = h.model.requests()[0].system.clone().unwrap();
    assert!(system.starts_with("You rate things.\n\n"));
    assert!(system.contains("JSON schema"));
    assert!(system.contains("\"score\""));
}

#[tokio::test(start_paused = true)]
async fn one_retry_with_the_errors_can_succeed() {
    let mut h = harness(
        structured_config(),
        vec![
            ScriptedTurn::text("{\"title\": \"Dune\", \"score\": 42}"),
            ScriptedTurn::text("{\"title\": \"Dune\", \"score\": 9}"),
        ],
    );
    let r = h.agent.run("rate Dune").await;
    assert!(r.success, "{:?}", r.output_error);
    assert_eq!(r.structured, Some(json!({"title": "Dune", "score": 9})));
    assert_eq!(r.turns, 2);
    let retry = h.model.requests()[1].messages.last().unwrap().clone();
    assert_eq!(retry.role, Role::User);
    assert!(retry.text().contains("/score"), "{}", retry.text());
    assert!(retry.text().contains("corrected JSON"));
}

#[tokio::test(start_paused = true)]
async fn a_failed_retry_is_success_false() {
    let mut h = harness(
        structured_config(),
        vec![
            ScriptedTurn::text("no idea"),
            ScriptedTurn::text("{\"title\": \"x\"}"),
        ],
    );
    let r = h.agent.run("rate").await;
    assert_eq!(r.exit, ExitReason::EndTurn);
    assert!(!r.success);
    assert_eq!(r.structured, None);
    assert!(r.output_error.unwrap().contains("score"));
    assert_eq!(h.model.requests().len(), 2);
}
