//! What an external agent's run opens with: its session (the agent's own on resume) and
//! its variables (the user's, the key added, the values to redact).

use paddock_protocol::Message;
use paddock_session::SessionWriter;

use super::{EXTERNAL_PROVIDER, config};
use crate::{HostError, RunService, SessionTarget};

impl RunService {
    /// The session an external agent's run writes: the agent's own on resume (refused when
    /// it is another's), else a new one; with the history so far.
    pub(super) fn external_session(
        &self,
        root: &std::path::Path,
        target: &SessionTarget,
        name: &str,
        prompt: &str,
    ) -> Result<(SessionWriter, Vec<Message>), HostError> {
        if let SessionTarget::Resume(id) = target {
            let (loaded, writer) = self.store().resume(root, id)?;
            if loaded.header.provider.as_deref() != Some(EXTERNAL_PROVIDER)
                || loaded.header.model != name
            {
                return Err(crate::error::RequestError::NotAgentsSession {
                    session: id.clone(),
                    agent: name.to_owned(),
                }
                .into());
            }
            return Ok((writer, loaded.history));
        }
        let (_, writer) = self
            .store()
            .create(root, Some(EXTERNAL_PROVIDER), name, prompt)?;
        Ok((writer, Vec::new()))
    }

    /// The agent's variables as the user named them, those with its key added, and the
    /// values to redact.
    #[allow(clippy::type_complexity)]
    pub(super) fn agent_vars(
        &self,
        name: &str,
        agent: &config::ExternalAgentConfig,
    ) -> Result<(Vec<(String, String)>, Vec<(String, String)>, Vec<String>), HostError> {
        let named: Vec<(String, String)> = agent.env.clone().into_iter().collect();
        let mut vars = named.clone();
        let mut secrets = Vec::new();
        if let Some(key) = &agent.key {
            let found = config::key_value(name, key, self.keys().as_ref())?;
            secrets.push(found.clone());
            vars.push((key.env.clone(), found));
        }
        Ok((named, vars, secrets))
    }
}
