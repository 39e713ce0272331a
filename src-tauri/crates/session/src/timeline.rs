//! A session read in order: the conversation it continues from once its rewinds are applied,
//! and the points it can be rewound to. The file itself is append-only: rewound messages stay
//! in it (and in [`LoadedSession::messages`](crate::LoadedSession)), only the history moves.

use std::collections::HashMap;

use paddock_protocol::{AgentEvent, Message, RewindInfo};

use crate::compactions::Compactions;
use crate::point::RewindPoint;
use crate::push_merged;

/// The last rewind of a session, and whether a prompt ran since (then it cannot be undone:
/// the conversation went on from the rewound state).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastRewind {
    pub info: RewindInfo,
    pub prompts_after: u32,
    /// Messages of the history just before it (where undoing it goes back to).
    pub history_before: u32,
}

#[derive(Debug, Default)]
pub(crate) struct Timeline {
    pub(crate) history: Vec<Message>,
    pub(crate) points: Vec<RewindPoint>,
    pub(crate) last_rewind: Option<LastRewind>,
    /// The history just before each rewind, by its id (for undo).
    before: HashMap<String, Vec<Message>>,
    prompts: u32,
    pub(crate) compactions: Compactions,
}

impl Timeline {
    pub(crate) fn message(&mut self, message: Message) {
        push_merged(&mut self.history, message);
    }

    pub(crate) fn event(&mut self, event: &AgentEvent) {
        let at = u32::try_from(self.history.len()).unwrap_or(u32::MAX);
        match event {
            // The prompt's message follows its run's start in the file.
            AgentEvent::RunStarted { .. } => {
                self.prompts += 1;
                if let Some(last) = &mut self.last_rewind {
                    last.prompts_after += 1;
                }
                self.point(0, at);
            }
            // Written before the turn's messages.
            AgentEvent::TurnFinished { turn, .. } => self.point(*turn, at),
            AgentEvent::CheckpointSaved(info) => {
                let prompt = self.prompts;
                match self
                    .points
                    .iter_mut()
                    .rev()
                    .find(|p| p.prompt == prompt && p.turn == info.turn)
                {
                    Some(point) => point.checkpoint = Some(recorded(info)),
                    None => self.points.push(RewindPoint {
                        prompt,
                        turn: info.turn,
                        messages: Some(info.messages),
                        checkpoint: Some(recorded(info)),
                    }),
                }
            }
            AgentEvent::Rewound(info) => self.rewound(info),
            AgentEvent::Compacted(info) => {
                self.compactions
                    .compacted(info, &mut self.history, &mut self.points);
            }
            AgentEvent::CompactionUndone { id } => {
                self.compactions
                    .undone(id, &mut self.history, &mut self.points);
            }
            AgentEvent::CompactionEdited { id, summary } => {
                self.compactions.edited(id, summary, &mut self.history);
            }
            _ => {}
        }
    }

    fn point(&mut self, turn: u32, messages: u32) {
        self.points.push(RewindPoint {
            prompt: self.prompts,
            turn,
            messages: Some(messages),
            checkpoint: None,
        });
    }

    fn rewound(&mut self, info: &RewindInfo) {
        let now = self.history.clone();
        let history_before = u32::try_from(now.len()).unwrap_or(u32::MAX);
        if info.conversation {
            match info.undoes.as_ref().and_then(|id| self.before.get(id)) {
                Some(earlier) => self.history = earlier.clone(),
                None => self
                    .history
                    .truncate(usize::try_from(info.messages).unwrap_or(usize::MAX)),
            }
        }
        self.before.insert(info.id.clone(), now);
        self.last_rewind = Some(LastRewind {
            info: info.clone(),
            prompts_after: 0,
            history_before,
        });
    }
}

fn recorded(info: &paddock_protocol::CheckpointInfo) -> (String, String) {
    (info.checkpoint.clone(), info.workspace.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{CheckpointInfo, StopReason};

    fn run(t: &mut Timeline, prompt: &str, turns: u32) {
        t.event(&AgentEvent::RunStarted {
            agent: "main".into(),
            model: "m".into(),
            max_turns: 100,
            pricing: None,
        });
        t.message(Message::user_text(prompt));
        for turn in 1..=turns {
            t.event(&AgentEvent::TurnFinished {
                turn,
                stop_reason: StopReason::EndTurn,
            });
            t.message(Message::assistant_text(format!("{prompt} {turn}")));
        }
    }

    fn rewind(id: &str, messages: u32, undoes: Option<&str>) -> AgentEvent {
        AgentEvent::Rewound(RewindInfo {
            id: id.into(),
            prompt: 1,
            turn: 0,
            files: false,
            conversation: true,
            messages,
            before: String::new(),
            workspace: String::new(),
            undoes: undoes.map(str::to_owned),
            changed: Vec::new(),
        })
    }

    #[test]
    fn points_follow_prompts_and_turns() {
        let mut t = Timeline::default();
        run(&mut t, "a", 2);
        t.event(&AgentEvent::CheckpointSaved(CheckpointInfo {
            checkpoint: "c1".into(),
            workspace: "/ws".into(),
            turn: 2,
            messages: 2,
        }));
        run(&mut t, "b", 1);
        let seen: Vec<_> = t
            .points
            .iter()
            .map(|p| {
                (
                    p.prompt,
                    p.turn,
                    p.messages.unwrap_or(u32::MAX),
                    p.checkpoint.as_ref().map(|c| c.0.as_str()),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (1, 0, 0, None),
                (1, 1, 1, None),
                (1, 2, 2, Some("c1")),
                (2, 0, 3, None),
                (2, 1, 4, None),
            ]
        );
    }

    #[test]
    fn a_rewind_cuts_the_history_and_its_undo_puts_it_back() {
        let mut t = Timeline::default();
        run(&mut t, "a", 1);
        run(&mut t, "b", 1);
        assert_eq!(t.history.len(), 4);
        t.event(&rewind("r1", 2, None));
        assert_eq!(t.history.len(), 2);
        assert_eq!(t.last_rewind.as_ref().unwrap().prompts_after, 0);
        t.event(&rewind("r2", 4, Some("r1")));
        assert_eq!(t.history.len(), 4, "undone");
        t.event(&rewind("r3", 2, Some("r2")));
        assert_eq!(t.history.len(), 2, "the undo undone");
        run(&mut t, "c", 1);
        assert_eq!(t.history.len(), 4);
        assert_eq!(t.history[2].text(), "c");
        assert_eq!(t.last_rewind.as_ref().unwrap().prompts_after, 1);
    }
}
