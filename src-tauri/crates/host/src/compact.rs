//! Compaction asked for between runs (`paddock compact`, the app's button), its undo, and
//! editing its summary. Each is an event appended to the session; the history the next
//! prompt continues is rebuilt from them.

use paddock_core::compaction;
use paddock_protocol::{AgentEvent, CompactionInfo, CompactionReason};
use tokio_util::sync::CancellationToken;

use crate::live::LiveProject;
use crate::tools::RunLimits;
use crate::trust::TrustPolicy;
use crate::{HostError, RunOptions, RunService};

impl RunService {
    /// Summarizes the start of the session's conversation with the project's model.
    pub async fn compact(
        &self,
        project: &LiveProject,
        session: &str,
        options: &RunOptions,
        trust: TrustPolicy,
    ) -> Result<CompactionInfo, HostError> {
        // Between prompts and short: a shell that wants to stop it drops the future.
        let cancel = CancellationToken::new();
        let root = project.root();
        self.refuse_busy(root, session)?;
        let loaded = self.store().load(root, session)?;
        let mut options = options.clone();
        if options.model.is_none() {
            options.model = Some(loaded.header.model.clone());
        }
        let resolved = self.resolve(root, &options, trust)?;
        let stored = resolved.settings().clone();
        let runtime = project
            .runtime(
                &resolved.with_options(&options)?,
                RunLimits::from_options(&options, false),
                self.keys().clone(),
                self.keys_generation(),
            )
            .await?;
        let pins = crate::hooks::HookPins::for_run(self.trust(), root, trust, &stored);
        self.pre_compact_hooks(&runtime, root, session, pins)
            .await?;
        let done = compaction::compact(
            runtime.model().as_ref(),
            runtime.model_name(),
            &loaded.history,
            runtime.context_window(),
            CompactionReason::Asked,
            &cancel,
        )
        .await
        .map_err(|e| match e {
            compaction::CompactError::NothingToCompact
            | compaction::CompactError::NoGain { .. } => {
                crate::error::HistoryError::NothingToCompact(e).into()
            }
            other => HostError::Provider(paddock_core::ModelError::new(
                paddock_protocol::ErrorKind::Other,
                other.to_string(),
            )),
        })?;
        self.store()
            .append_event(root, session, AgentEvent::Compacted(done.info.clone()))?;
        Ok(done.info)
    }

    /// The `pre_compact` hooks of a compaction the person asked for; what they did is kept
    /// in the session as events.
    async fn pre_compact_hooks(
        &self,
        runtime: &crate::runtime::ProjectRuntime,
        root: &std::path::Path,
        session: &str,
        pins: crate::hooks::HookPins,
    ) -> Result<(), HostError> {
        use paddock_core::hooks::Hooks;
        let sets = crate::hooks::sets_for(self.trust().config_dir(), runtime.project())?;
        let hooks = crate::hooks::ProjectHooks::new(
            sets,
            runtime.tools().env().clone(),
            session.to_owned(),
            None,
            pins,
        );
        if !hooks.acts_at(paddock_protocol::HookPoint::PreCompact) {
            return Ok(());
        }
        let events = paddock_core::CollectSink::new();
        let ctx = crate::hooks::detached_context(events.clone(), "compaction");
        hooks.pre_compact(false, &ctx).await;
        for event in events.events() {
            self.store().append_event(root, session, event)?;
        }
        Ok(())
    }

    /// Undoes the session's latest compaction: the summarized messages come back.
    pub fn undo_compaction(
        &self,
        root: &std::path::Path,
        session: &str,
    ) -> Result<CompactionInfo, HostError> {
        self.refuse_busy(root, session)?;
        let loaded = self.store().load(root, session)?;
        let Some(last) = loaded.last_compaction else {
            return Err(crate::error::HistoryError::NoCompaction.into());
        };
        self.store().append_event(
            root,
            session,
            AgentEvent::CompactionUndone {
                id: last.id.clone(),
            },
        )?;
        Ok(last)
    }

    /// Replaces the latest compaction's summary with the user's text.
    pub fn edit_compaction(
        &self,
        root: &std::path::Path,
        session: &str,
        id: &str,
        summary: &str,
    ) -> Result<(), HostError> {
        self.refuse_busy(root, session)?;
        if summary.trim().is_empty() {
            return Err(crate::error::HistoryError::EmptySummary.into());
        }
        let loaded = self.store().load(root, session)?;
        if loaded.last_compaction.as_ref().is_none_or(|c| c.id != id) {
            return Err(crate::error::HistoryError::NotLatestCompaction.into());
        }
        self.store().append_event(
            root,
            session,
            AgentEvent::CompactionEdited {
                id: id.to_owned(),
                summary: summary.to_owned(),
            },
        )?;
        Ok(())
    }
}
