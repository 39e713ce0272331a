//! A long session's last turns, for the transcript's first paint: the view opens on its last
//! turns, so only those cross to the page (a 10,000-event session is 3.3 MB of JSON whole).
//! The cut follows the view's own replay (`ui/src/lib/stored.ts`): prompts pair with runs by
//! place, a run's turns with its replies by place, and a turn starts at its `context` event,
//! else at the model call's usage, else at its `turn_finished`. When a session does not pair
//! up that simply (lost events), or was ever rewound (a rewind's marks name prompts and turns
//! by place in the whole session), nothing is cut: the view gets it whole.

use paddock_protocol::{
    AgentEvent, CompactionReason, ContentBlock, Message, Omitted, Role, TokenUsage,
};

/// One prompt and the assistant messages that answered it (message indices).
struct Group {
    prompt: usize,
    replies: Vec<usize>,
}

/// One run's events (indices into the session's events), without the between-run ones.
struct Run {
    events: Vec<usize>,
}

/// Keeps the last `turns` turns or a few more (a cut falls on a turn boundary), and says what
/// went. `None`, with nothing changed, when there is nothing to leave out or no safe cut.
pub fn keep_tail(
    messages: &mut Vec<Message>,
    events: &mut Vec<AgentEvent>,
    turns: u32,
) -> Option<Omitted> {
    if turns == 0 || events.iter().any(|e| matches!(e, AgentEvent::Rewound(_))) {
        return None;
    }
    let groups = prompt_groups(messages);
    let runs = split_runs(events);
    if groups.len() != runs.len() {
        return None;
    }
    let counts: Vec<u32> = runs
        .iter()
        .zip(&groups)
        .map(|(run, group)| turn_count(events, run, group.replies.len()))
        .collect();
    // From the end, the run where the budget runs out, and how many turns it keeps.
    let mut left = turns;
    let (at, keep) = counts.iter().enumerate().rev().find_map(|(i, &n)| {
        if n >= left {
            Some((i, left))
        } else {
            left -= n;
            None
        }
    })?;
    let (run, group) = (&runs[at], &groups[at]);
    let starts = turn_starts(events, run);
    // Leave out the run's first turns when a finished turn and a reply follow them (the
    // history is saved less often than the events: it may lag); else cut before the run.
    let wanted = counts[at] - keep;
    let dropped = match usize::try_from(wanted) {
        Ok(n) if n < starts.len() && n < group.replies.len() => n,
        _ => 0,
    };
    if at == 0 && dropped == 0 {
        return None;
    }
    let first_run_turns = if dropped == 0 { 0 } else { wanted };
    let omitted = Omitted {
        runs: u32::try_from(at).ok()?,
        turns: first_run_turns,
        hidden_turns: counts[..at].iter().sum::<u32>() + first_run_turns,
        usage: runs[..at]
            .iter()
            .fold(TokenUsage::default(), |sum, r| sum + run_usage(events, r)),
        cost: paddock_host::session::session_cost(
            runs[..at]
                .iter()
                .flat_map(|r| r.events.iter().map(|&i| &events[i])),
        ),
    };
    if dropped == 0 {
        // Rewinds and the like between the previous run and this one stay, before it.
        let mut cut = run.events[0];
        while cut > 0 && between_runs(&events[cut - 1]) {
            cut -= 1;
        }
        events.drain(..cut);
        messages.drain(..group.prompt);
    } else {
        let head = starts[0];
        let from = run.events[starts[dropped]];
        let kept_head: Vec<AgentEvent> = run.events[..head]
            .iter()
            .map(|&i| events[i].clone())
            .collect();
        events.drain(..from);
        events.splice(0..0, kept_head);
        let reply = group.replies[dropped];
        messages.drain(group.prompt + 1..reply);
        messages.drain(..group.prompt);
    }
    Some(omitted)
}

/// A prompt is a user message with no tool results; assistant messages answer the last one.
fn prompt_groups(messages: &[Message]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        match m.role {
            Role::User => {
                let results = m
                    .content
                    .iter()
                    .any(|b| matches!(b, ContentBlock::ToolResult(_)));
                if !results {
                    groups.push(Group {
                        prompt: i,
                        replies: Vec::new(),
                    });
                }
            }
            Role::Assistant => {
                if let Some(g) = groups.last_mut() {
                    g.replies.push(i);
                }
            }
        }
    }
    groups
}

/// Events written between runs: rewinds, compactions asked for, their undos and edits.
fn between_runs(e: &AgentEvent) -> bool {
    match e {
        AgentEvent::Rewound(_)
        | AgentEvent::CompactionUndone { .. }
        | AgentEvent::CompactionEdited { .. } => true,
        AgentEvent::Compacted(c) => c.reason == CompactionReason::Asked,
        _ => false,
    }
}

/// The runs, split at `run_started` (events before the first one make a run of their own).
fn split_runs(events: &[AgentEvent]) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if between_runs(e) {
            continue;
        }
        if matches!(e, AgentEvent::RunStarted { .. }) || runs.is_empty() {
            runs.push(Run { events: Vec::new() });
        }
        if let Some(r) = runs.last_mut() {
            r.events.push(i);
        }
    }
    runs
}

/// Where each finished turn starts, as places in the run's event list.
fn turn_starts(events: &[AgentEvent], run: &Run) -> Vec<usize> {
    let at = |p: usize| &events[run.events[p]];
    let mut starts = Vec::new();
    let mut previous: Option<usize> = None;
    for p in 0..run.events.len() {
        if !matches!(at(p), AgentEvent::TurnFinished { .. }) {
            continue;
        }
        let from = previous.map_or(0, |q| q + 1);
        let context = (from..p).find(|&q| matches!(at(q), AgentEvent::Context(_)));
        let usage = p > 0 && matches!(at(p - 1), AgentEvent::Usage { .. });
        starts.push(context.unwrap_or(if usage { p - 1 } else { p }));
        previous = Some(p);
    }
    starts
}

/// The turns the view shows for a run (at least one: a run with none still takes a place).
fn turn_count(events: &[AgentEvent], run: &Run, replies: usize) -> u32 {
    let finished = run
        .events
        .iter()
        .filter(|&&i| matches!(events[i], AgentEvent::TurnFinished { .. }))
        .count();
    let ended = run.events.iter().rev().find_map(|&i| match &events[i] {
        AgentEvent::RunFinished { turns, .. } => Some(*turns as usize),
        _ => None,
    });
    // The view adds one unfinished turn when the run says (or its replies say) there were more.
    let n = finished + usize::from(ended.unwrap_or(finished.max(replies)) > finished);
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}

/// A run's usage as the view sums it: its end's, else the last running total.
fn run_usage(events: &[AgentEvent], run: &Run) -> TokenUsage {
    let mut last = TokenUsage::default();
    for &i in &run.events {
        match &events[i] {
            AgentEvent::RunFinished { usage, .. } => return *usage,
            AgentEvent::Usage { total, .. } => last = *total,
            _ => {}
        }
    }
    last
}

#[cfg(test)]
#[path = "tail_tests.rs"]
mod tests;
