//! What a session cost, from the figures its runs recorded.

use std::io::{BufRead, BufReader};
use std::path::Path;

use paddock_protocol::{AgentEvent, Cost, Pricing, SessionRecord, TokenUsage};

/// The cost of each run of `events`, in order: its `run_finished` figure, or for a run cut
/// off before it ended, its last usage total. A run recorded before costs were is priced
/// unknown (if it used any tokens).
pub fn run_costs<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Vec<Cost> {
    let unknown = |usage: &TokenUsage| Pricing::Unknown.cost(usage);
    let mut out = Vec::new();
    let mut open: Option<Cost> = None;
    for event in events {
        match event {
            AgentEvent::RunStarted { .. } => {
                out.extend(open.replace(Cost::NONE));
            }
            AgentEvent::Usage {
                total, total_cost, ..
            } => {
                open = Some(total_cost.unwrap_or_else(|| unknown(total)));
            }
            AgentEvent::RunFinished { cost, usage, .. } => {
                open = None;
                out.push(cost.unwrap_or_else(|| unknown(usage)));
            }
            _ => {}
        }
    }
    out.extend(open);
    out
}

/// The cost recorded in a session file, reading only its runs' top-level start, usage and
/// end lines (a teammate's are inside its caller's figures); `None` without a run or when
/// the file cannot be read.
pub fn cost_in_file(path: &Path) -> Option<Cost> {
    const RUN_LINES: [&str; 3] = [
        r#"{"type":"event","event":{"type":"run_started""#,
        r#"{"type":"event","event":{"type":"usage""#,
        r#"{"type":"event","event":{"type":"run_finished""#,
    ];
    let file = std::fs::File::open(path).ok()?;
    let events: Vec<AgentEvent> = BufReader::new(file)
        .lines()
        .map_while(Result::ok)
        .filter(|line| RUN_LINES.iter().any(|p| line.starts_with(p)))
        .filter_map(|line| match serde_json::from_str(&line) {
            Ok(SessionRecord::Event { event }) => Some(event),
            _ => None,
        })
        .collect();
    session_cost(&events)
}

/// The whole session's cost; `None` when it has no run.
pub fn session_cost<'a>(events: impl IntoIterator<Item = &'a AgentEvent>) -> Option<Cost> {
    total(&run_costs(events))
}

/// The sum of runs' costs; `None` for no run.
pub fn total(runs: &[Cost]) -> Option<Cost> {
    (!runs.is_empty()).then(|| runs.iter().fold(Cost::NONE, |a, b| a + *b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ExitReason;

    fn started() -> AgentEvent {
        AgentEvent::RunStarted {
            agent: "main".into(),
            model: "m".into(),
            max_turns: 10,
            pricing: None,
        }
    }

    fn priced(usd: f64) -> Cost {
        Cost {
            usd,
            complete: true,
            local: false,
        }
    }

    #[test]
    fn finished_runs_cut_off_runs_and_old_runs_are_summed() {
        let events = vec![
            started(),
            AgentEvent::RunFinished {
                exit: ExitReason::EndTurn,
                turns: 1,
                usage: TokenUsage::new(10, 5),
                cost: Some(priced(0.5)),
            },
            // Cut off: its last usage total stands.
            started(),
            AgentEvent::Usage {
                turn: TokenUsage::new(1, 1),
                total: TokenUsage::new(1, 1),
                turn_cost: Some(priced(0.25)),
                total_cost: Some(priced(0.25)),
            },
            // Written before costs: unknown.
            started(),
            AgentEvent::RunFinished {
                exit: ExitReason::EndTurn,
                turns: 1,
                usage: TokenUsage::new(3, 3),
                cost: None,
            },
        ];
        let runs = run_costs(&events);
        assert_eq!(runs.len(), 3);
        assert_eq!(runs[1], priced(0.25));
        assert!(!runs[2].complete);
        let total = session_cost(&events).unwrap();
        assert!((total.usd - 0.75).abs() < 1e-12 && !total.complete);
        assert_eq!(session_cost(&[]), None);
    }
}
