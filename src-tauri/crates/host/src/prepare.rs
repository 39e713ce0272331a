//! The named phases of [`RunService::prepare`]: the session resumed or made, its checkpoint
//! recorder, its hooks; and the one "session busy" check every kind of run makes.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use paddock_core::EventSink;
use paddock_protocol::{Message, ProjectSettings, PromptAttachment};
use paddock_session::SessionWriter;

use crate::checkpoints::Recorder;
use crate::hooks::{HookSource, ProjectHooks};
use crate::{HostError, ProjectRuntime, RunOptions, RunService, SessionTarget};

/// A resumed session: its history, its warnings, and where the run goes on writing it.
pub(crate) type Resumed = (Vec<Message>, Vec<String>, SessionWriter);

impl RunService {
    /// Refused while a prompt runs in `session` (whatever kind of run asks).
    pub(crate) fn refuse_busy(&self, root: &Path, session: &str) -> Result<(), HostError> {
        if self.runs().is_running(root, session) {
            return Err(HostError::Busy(
                "a prompt is already running in this session; stop it or wait for it to finish"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The session `target` resumes, if any: refused when it is an external agent's; its
    /// model and provider carry on unless a flag or the settings (`stored`) name others.
    pub(crate) fn resumed(
        &self,
        root: &Path,
        target: &SessionTarget,
        options: &mut RunOptions,
        stored: &ProjectSettings,
    ) -> Result<Option<Resumed>, HostError> {
        let SessionTarget::Resume(id) = target else {
            return Ok(None);
        };
        let (session, writer) = self.store().resume(root, id)?;
        if session.header.provider.as_deref() == Some(crate::external::EXTERNAL_PROVIDER) {
            return Err(crate::error::RequestError::ExternalSession {
                session: id.clone(),
                agent: session.header.model.clone(),
            }
            .into());
        }
        if options.model.is_none() && stored.model.is_none() {
            options.model = Some(session.header.model.clone());
        }
        if options.provider.is_none() && stored.provider.is_none() {
            options.provider = session
                .header
                .provider
                .as_deref()
                .and_then(|p| p.parse().ok());
        }
        Ok(Some((session.history, session.warnings, writer)))
    }

    /// What is read before anything is written for the session, so that a bad `@` name or
    /// a hooks file that cannot be used refuses the run: the prompt's message, the hooks.
    #[allow(clippy::type_complexity)]
    pub(crate) fn read_before_writing(
        &self,
        runtime: &ProjectRuntime,
        prompt: &str,
        attachments: &[PromptAttachment],
    ) -> Result<(Message, Vec<(HookSource, paddock_hooks::HooksConfig)>), HostError> {
        let vision = crate::attach::Vision {
            provider: runtime.provider(),
            model: runtime.model_name(),
            takes: runtime.takes_images(),
        };
        let hook_sets = crate::hooks::sets_for(self.trust().config_dir(), runtime.project())?;
        let message = crate::attach::prompt_message(
            &runtime.tools().env().guard(),
            prompt,
            attachments,
            vision,
        )?;
        Ok((message, hook_sets))
    }

    /// The run's session: the resumed one (its images named, not sent, to a model that
    /// reads text only), or a new one for `prompt`.
    pub(crate) fn session_for(
        &self,
        root: &Path,
        target: &SessionTarget,
        resumed: Option<Resumed>,
        runtime: &ProjectRuntime,
        prompt: &str,
    ) -> Result<Resumed, HostError> {
        if let Some((mut history, mut warnings, writer)) = resumed {
            if runtime.takes_images() == Some(false) {
                let n = crate::attach::without_images(&mut history);
                if n > 0 {
                    warnings.push(format!(
                        "{} reads text only: the session's {n} image(s) are named, not sent",
                        runtime.model_name()
                    ));
                }
            }
            return Ok((history, warnings, writer));
        }
        let provider = Some(runtime.provider().as_str());
        let model = runtime.model_name();
        let (_, writer) = match target {
            SessionTarget::NewAs(id) => {
                self.store().create_as(root, id, provider, model, prompt)?
            }
            _ => self.store().create(root, provider, model, prompt)?,
        };
        Ok((Vec::new(), Vec::new(), writer))
    }

    /// The run's checkpoint recorder, with the first snapshot under way (it reads the whole
    /// workspace while the model thinks), and where it will say it waits for that snapshot.
    #[allow(clippy::type_complexity)]
    pub(crate) fn recorder_for(
        &self,
        runtime: &ProjectRuntime,
    ) -> Result<(Recorder, Arc<OnceLock<Arc<dyn EventSink>>>), HostError> {
        // A worktree's checkpoints are its own (a checkpoint is put back only where taken).
        let checkpoints = self.checkpoints(runtime.project().root())?;
        let guard = runtime.tools().env().guard();
        checkpoints.begin_base(guard.clone());
        let events = Arc::new(OnceLock::new());
        let recorder = Recorder {
            checkpoints,
            guard,
            events: events.clone(),
        };
        Ok((recorder, events))
    }

    /// The run's hooks, told whether this is the session's first run in this process.
    pub(crate) fn hooks_for(
        &self,
        runtime: &ProjectRuntime,
        session_id: &str,
        target: &SessionTarget,
        sets: Vec<(HookSource, paddock_hooks::HooksConfig)>,
        pins: crate::hooks::HookPins,
    ) -> ProjectHooks {
        let first = self.first_run_of(session_id);
        let start = match (first, target) {
            (false, _) => None,
            (true, SessionTarget::Resume(_)) => Some(paddock_hooks::SessionSource::Resume),
            (true, SessionTarget::New | SessionTarget::NewAs(_)) => {
                Some(paddock_hooks::SessionSource::Startup)
            }
        };
        ProjectHooks::new(
            sets,
            runtime.tools().env().clone(),
            session_id.to_owned(),
            start,
            pins,
        )
    }
}
