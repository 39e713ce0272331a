//! `todo_write`: the agent's own checklist for multi-step work, shown to the user as it
//! changes. It touches nothing but the session (the list travels as an event), so every
//! preset grants it.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use paddock_core::tool::{SUMMARY_CHARS, one_line};
use paddock_core::{ToolContext, ToolError, ToolOutput, TypedTool};
use paddock_protocol::{AgentEvent, Plan, PlanItem, PlanStatus};

/// Most steps one plan may hold.
pub const MAX_ITEMS: usize = 30;
/// Longest step, in characters.
pub const MAX_ITEM_CHARS: usize = 300;

/// Keep a short checklist of the steps of the current task, which the user watches as you
/// work. Use it for work with three or more distinct steps, or when the user gives a list
/// of things to do; skip it for a single step or a question. Send the whole list every
/// time: write it when you start, mark a step `in_progress` before you begin it (one at a
/// time) and `completed` as soon as it is done, and add steps you discover. Never mark a
/// step completed that failed or is only partly done.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoWriteInput {
    /// The whole list, in order (at most 30 steps).
    pub todos: Vec<TodoInput>,
}

/// One step.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TodoInput {
    /// The step, imperative and short: "Run the tests".
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: TodoStatus,
    /// The step as it reads while under way: "Running the tests".
    #[serde(default, alias = "activeForm")]
    pub active_form: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    Pending,
    #[serde(alias = "in-progress")]
    InProgress,
    #[serde(alias = "done")]
    Completed,
}

pub struct TodoWriteTool;

#[async_trait]
impl TypedTool for TodoWriteTool {
    type Input = TodoWriteInput;
    const NAME: &'static str = "todo_write";

    fn mutates(&self) -> bool {
        false
    }

    fn summary(&self, input: &Value) -> String {
        let items = input.get("todos").and_then(Value::as_array);
        let count = |status: &str| {
            items.map_or(0, |items| {
                items
                    .iter()
                    .filter(|i| i.get("status").and_then(Value::as_str) == Some(status))
                    .count()
            })
        };
        let total = items.map_or(0, Vec::len);
        let doing = items
            .and_then(|items| {
                items
                    .iter()
                    .find(|i| i.get("status").and_then(Value::as_str) == Some("in_progress"))
            })
            .and_then(|i| i.get("content").and_then(Value::as_str));
        let head = format!("{} of {total} done", count("completed"));
        match doing {
            Some(step) => one_line(&format!("{head}; now: {step}"), SUMMARY_CHARS),
            None => head,
        }
    }

    async fn run(&self, input: TodoWriteInput, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let plan = plan_of(input)?;
        let (done, total) = plan.progress();
        let text = if total == 0 {
            "The plan is cleared.".to_owned()
        } else {
            format!("The plan is saved and shown to the user ({done} of {total} done).")
        };
        ctx.events.emit(AgentEvent::Plan(plan));
        Ok(ToolOutput::ok(text))
    }
}

/// The checked plan, or what is wrong with the input, said so the model can fix it.
fn plan_of(input: TodoWriteInput) -> Result<Plan, ToolError> {
    if input.todos.len() > MAX_ITEMS {
        return Err(ToolError::InvalidInput(format!(
            "the plan has {} steps; keep it to {MAX_ITEMS} or fewer (merge small ones)",
            input.todos.len()
        )));
    }
    let mut items = Vec::with_capacity(input.todos.len());
    for (n, todo) in input.todos.into_iter().enumerate() {
        let content = todo.content.trim();
        if content.is_empty() {
            return Err(ToolError::InvalidInput(format!(
                "step {} has no content",
                n + 1
            )));
        }
        if content.chars().count() > MAX_ITEM_CHARS {
            return Err(ToolError::InvalidInput(format!(
                "step {} is longer than {MAX_ITEM_CHARS} characters; say it shorter",
                n + 1
            )));
        }
        let active_form = todo
            .active_form
            .map(|a| one_line(a.trim(), MAX_ITEM_CHARS))
            .filter(|a| !a.is_empty());
        items.push(PlanItem {
            content: one_line(content, MAX_ITEM_CHARS),
            status: match todo.status {
                TodoStatus::Pending => PlanStatus::Pending,
                TodoStatus::InProgress => PlanStatus::InProgress,
                TodoStatus::Completed => PlanStatus::Completed,
            },
            active_form,
        });
    }
    Ok(Plan { items })
}
