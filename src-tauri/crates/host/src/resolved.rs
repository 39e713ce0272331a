//! One project's configuration as it applies, made in one place: the folder's settings file
//! weighed against the user's trust, a run's options applied once over it, and, for a
//! session in a worktree, where that session works. Every consumer reads this value (runs
//! of both kinds, the app's project info, doctor, hooks, compaction, `rules explain`), and
//! [`Project`] is built only from it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use paddock_protocol::{ProjectSettings, TrustItem, TrustReport};

use crate::managed::ManagedPolicy;
use crate::project::{WorktreeWall, canonical_dir};
use crate::trust::{TrustPolicy, TrustStore};
use crate::{HostError, Project, RunOptions, settings};

/// A project's configuration as it applies. Immutable once made: a narrower view is a new
/// value ([`Self::narrowed`], [`Self::in_worktree`]).
#[derive(Debug, Clone)]
pub struct Resolved {
    /// The project's folder (absolute, links resolved).
    root: PathBuf,
    /// The file as written (defaults when there is none, or when it is broken).
    written: ProjectSettings,
    /// Why the file could not be read, when it was broken (only [`Self::load_lenient`]).
    settings_error: Option<String>,
    /// What applies: trust weighed, options applied.
    settings: ProjectSettings,
    trust: TrustReport,
    /// What waits for trust that the run's options did not make moot.
    pending: Vec<TrustItem>,
    options_applied: bool,
    /// Where a session in a worktree works: the project's folder inside its checkout, and
    /// how its wall differs.
    worktree: Option<(PathBuf, WorktreeWall)>,
    /// The machine's managed policy, applied over `settings` at every change of them.
    policy: Arc<ManagedPolicy>,
    /// Why the managed policy could not be read ([`Self::load_lenient`] only; runs refuse).
    policy_error: Option<String>,
}

impl Resolved {
    /// The settings of `root` in effect: every field that waits for the user's trust back
    /// at its safe default. A broken file is an error.
    pub fn load(trust: &TrustStore, root: &Path) -> Result<Self, HostError> {
        Self::for_run(
            trust,
            root,
            &RunOptions::default(),
            TrustPolicy::SafeDefaults,
        )
    }

    /// As [`Self::for_run`] with safe defaults, with a broken file read as defaults and its
    /// error kept (what a project window and doctor show while the user fixes it).
    /// A broken managed policy is kept as the error too (runs refuse it).
    pub fn load_lenient(trust: &TrustStore, root: &Path, options: &RunOptions) -> Self {
        let (policy, policy_error) = match ManagedPolicy::load() {
            Ok(p) => (Arc::new(p), None),
            Err(e) => (Arc::default(), Some(e.to_string())),
        };
        let (written, error) = match settings::load(root) {
            Ok(written) => (written, None),
            Err(e) => (ProjectSettings::default(), Some(e.to_string())),
        };
        let mut resolved = Self::weighed(trust, root, written, error, options, policy);
        resolved.policy_error = policy_error;
        resolved
    }

    /// The settings a run with `options` may use under `policy`: what the user has not
    /// trusted is dropped (safe defaults), refused with its list, or (the user vouched for
    /// this run) kept. The options themselves are applied by [`Self::with_options`].
    pub fn for_run(
        trust: &TrustStore,
        root: &Path,
        options: &RunOptions,
        policy: TrustPolicy,
    ) -> Result<Self, HostError> {
        let managed = Arc::new(ManagedPolicy::load()?);
        let written = settings::load(root)?;
        let mut resolved = Self::weighed(trust, root, written, None, options, managed);
        match policy {
            TrustPolicy::SafeDefaults => {}
            TrustPolicy::Refuse if !resolved.pending.is_empty() => {
                return Err(HostError::Untrusted {
                    folder: resolved.trust.folder.clone(),
                    pending: resolved.pending,
                });
            }
            TrustPolicy::Refuse => {}
            TrustPolicy::Assume => {
                resolved.settings = resolved.written.clone();
                resolved.policy.apply(&mut resolved.settings);
                resolved.pending.clear();
            }
        }
        Ok(resolved)
    }

    /// `settings` taken as they are, trusted: what a shell or a test builds in code.
    /// The managed policy still applies.
    pub fn as_written(root: &Path, settings: ProjectSettings) -> Result<Self, HostError> {
        let policy = Arc::new(ManagedPolicy::load()?);
        let mut applied = settings.clone();
        policy.apply(&mut applied);
        Ok(Self {
            root: canonical_dir(root)?,
            written: settings,
            settings_error: None,
            settings: applied,
            trust: TrustReport::default(),
            pending: Vec::new(),
            options_applied: false,
            worktree: None,
            policy,
            policy_error: None,
        })
    }

    fn weighed(
        trust: &TrustStore,
        root: &Path,
        written: ProjectSettings,
        settings_error: Option<String>,
        options: &RunOptions,
        policy: Arc<ManagedPolicy>,
    ) -> Self {
        let assessment = trust.assess(root, &written);
        let mut settings = assessment.apply(&written);
        policy.apply(&mut settings);
        Self {
            root: root.to_path_buf(),
            settings,
            pending: assessment.pending_for(options),
            trust: assessment.report,
            written,
            settings_error,
            options_applied: false,
            worktree: None,
            policy,
            policy_error: None,
        }
    }

    /// The run's `options` over the settings (flags over settings over defaults), checked.
    /// Applied once: a second call is a mistake in Paddock, refused.
    pub fn with_options(mut self, options: &RunOptions) -> Result<Self, HostError> {
        if self.options_applied {
            return Err(HostError::Internal(
                "a run's options were applied twice".into(),
            ));
        }
        let mut settings = options.apply(&self.settings);
        self.policy.apply(&mut settings);
        if let Err(e) = settings::validate(&settings) {
            return Err(self.not_applied(e.into()));
        }
        self.settings = settings;
        self.options_applied = true;
        Ok(self)
    }

    /// The same configuration for a session working in `worktree`: its checkout is the
    /// project's folder, behind the worktree's wall.
    pub fn in_worktree(mut self, worktree: &paddock_worktree::Worktree) -> Result<Self, HostError> {
        let dir = canonical_dir(&worktree.project_dir())?;
        self.worktree = Some((dir, WorktreeWall::of(worktree)));
        Ok(self)
    }

    /// A narrower view for one wall built from this configuration (a worktree's setup
    /// filling the whole checkout, an external agent's own hosts).
    pub fn narrowed(mut self, change: impl FnOnce(&mut ProjectSettings)) -> Self {
        change(&mut self.settings);
        self.policy.apply(&mut self.settings);
        self
    }

    /// The project the tools and the wall are built for.
    pub fn project(&self) -> Project {
        match &self.worktree {
            None => Project::resolved(
                self.root.clone(),
                self.settings.clone(),
                None,
                self.policy.clone(),
            ),
            Some((dir, wall)) => Project::resolved(
                dir.clone(),
                self.settings.clone(),
                Some(wall.clone()),
                self.policy.clone(),
            ),
        }
    }

    /// `error` (a run that could not start) with the settings that were left out for want
    /// of trust, when there are any: the missing base URL or model may be one of them.
    pub fn not_applied(&self, error: HostError) -> HostError {
        if self.pending.is_empty() {
            return error;
        }
        HostError::NotApplied {
            source: Box::new(error),
            pending: self.pending.clone(),
        }
    }

    /// The project's folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What applies.
    pub fn settings(&self) -> &ProjectSettings {
        &self.settings
    }

    /// The file as written (defaults when there is none or it is broken).
    pub fn written(&self) -> &ProjectSettings {
        &self.written
    }

    /// Why the file could not be read ([`Self::load_lenient`] only).
    pub fn settings_error(&self) -> Option<&str> {
        self.settings_error.as_deref()
    }

    /// What waits for trust, and what is trusted.
    pub fn trust(&self) -> &TrustReport {
        &self.trust
    }

    /// What waits for trust that the run's options did not make moot.
    pub fn pending(&self) -> &[TrustItem] {
        &self.pending
    }

    /// The machine's managed policy, as applied here.
    pub fn policy(&self) -> &Arc<ManagedPolicy> {
        &self.policy
    }

    /// Why the managed policy could not be read ([`Self::load_lenient`] only).
    pub fn policy_error(&self) -> Option<&str> {
        self.policy_error.as_deref()
    }
}
