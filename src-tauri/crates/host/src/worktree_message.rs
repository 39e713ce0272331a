//! A commit message for a worktree's pending changes, proposed by the session's model from
//! the diff (the user sees it in the commit field and may change it before committing).

use futures_util::StreamExt;
use paddock_core::{ModelEvent, ModelRequest};
use paddock_protocol::Message;

use crate::live::LiveProject;
use crate::tools::RunLimits;
use crate::trust::TrustPolicy;
use crate::{HostError, RunOptions, RunService};

/// Characters of the diff the model is shown at most.
const MAX_DIFF_CHARS: usize = 24_000;
/// Tokens the message may take.
const MAX_MESSAGE_TOKENS: u32 = 300;

const SYSTEM: &str = "You write git commit messages. Answer with the message only: a summary \
line of at most 72 characters in the imperative mood, then (only if it helps) a blank line and \
a few short lines saying why. No quotes, no code fences, no preamble.";

impl RunService {
    /// The model's proposal for a commit of what the worktree `name` has not committed.
    pub async fn propose_commit_message(
        &self,
        project: &LiveProject,
        name: &str,
    ) -> Result<String, HostError> {
        let root = project.root();
        let worktree = self.worktree(root, name)?;
        let diff = worktree.pending_text(MAX_DIFF_CHARS)?;
        if diff.is_empty() {
            return Err(crate::error::RequestError::NothingToCommit.into());
        }
        let title = self.worktree_title(root, &worktree);
        let options = RunOptions::default();
        let resolved = self
            .resolve(root, &options, TrustPolicy::SafeDefaults)?
            .with_options(&options)?;
        let runtime = project
            .runtime(
                &resolved,
                RunLimits::from_options(&options, false),
                self.keys().clone(),
                self.keys_generation(),
            )
            .await?;
        let ask = format!("The task was: {title}\n\nThe changes to commit:\n{diff}");
        let messages = [Message::user_text(ask)];
        let mut stream = runtime.model().stream(&ModelRequest {
            model: runtime.model_name(),
            system: Some(SYSTEM),
            messages: &messages,
            tools: &[],
            max_output_tokens: Some(MAX_MESSAGE_TOKENS),
        });
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            match event {
                Ok(ModelEvent::TextDelta(t)) => text.push_str(&t),
                Ok(_) => {}
                Err(e) => return Err(e.into()),
            }
        }
        let message = clean(&text);
        if message.is_empty() {
            return Err(crate::error::RequestError::NoCommitMessage.into());
        }
        Ok(message)
    }
}

/// The message without fences or quotes a model may wrap it in.
fn clean(text: &str) -> String {
    let lines: Vec<&str> = text
        .trim()
        .lines()
        .filter(|l| !l.trim_start().starts_with("```"))
        .collect();
    lines
        .join("\n")
        .trim()
        .trim_matches(['"', '\''])
        .trim()
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn fences_and_quotes_go() {
        assert_eq!(clean("```\nAdd notes\n\nWhy.\n```"), "Add notes\n\nWhy.");
        assert_eq!(clean("\"Fix the parser\""), "Fix the parser");
    }
}
