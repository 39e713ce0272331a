use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Where one step of the agent's plan stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PlanStatus {
    Pending,
    InProgress,
    Completed,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PlanItem {
    /// What the step is, imperative ("Run the tests").
    pub content: String,
    pub status: PlanStatus,
    /// How the step reads while it is under way ("Running the tests"), when the model said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub active_form: Option<String>,
}

/// The checklist the agent keeps with `todo_write`: the whole list each time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Plan {
    pub items: Vec<PlanItem>,
}

impl Plan {
    /// Steps done, and steps in all.
    pub fn progress(&self) -> (usize, usize) {
        let done = self
            .items
            .iter()
            .filter(|i| i.status == PlanStatus::Completed)
            .count();
        (done, self.items.len())
    }
}
