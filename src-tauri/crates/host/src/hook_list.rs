//! Every hook a project's runs would see, with where it comes from and whether it waits for
//! trust: for the grants screen and `paddock hooks list` (one function for both shells).

use std::path::Path;

use paddock_protocol::HookInfo;

use crate::hooks::{HookSource, project_hooks, trust_key, user_hooks};
use crate::{HostError, Resolved, RunService};

impl RunService {
    /// The user's hooks, then the project's as written (those not trusted yet marked
    /// `waiting`: they do not run).
    pub fn hook_list(&self, root: &Path) -> Result<Vec<HookInfo>, HostError> {
        let resolved = Resolved::load(self.trust(), root)?;
        let written = resolved.written();
        let pending: Vec<String> = resolved.pending().iter().map(|i| i.key.clone()).collect();
        let sets = [
            (HookSource::User, user_hooks(self.trust().config_dir())?),
            (HookSource::Project, project_hooks(written)?),
        ];
        let mut out = Vec::new();
        for (source, config) in &sets {
            for hook in config.hooks() {
                let mut command = hook.command().to_owned();
                for arg in hook.args().into_iter().flatten() {
                    command.push(' ');
                    command.push_str(arg);
                }
                out.push(HookInfo {
                    source: source.as_str().to_owned(),
                    point: hook.event(),
                    title: hook.title(),
                    matcher: hook.matcher().map(str::to_owned),
                    rule: hook.rule().map(str::to_owned),
                    command,
                    timeout_secs: hook.timeout_secs(),
                    fail_closed: hook.on_error() == paddock_hooks::OnError::Closed,
                    waiting: *source == HookSource::Project && pending.contains(&trust_key(hook)),
                    digest: hook.digest().to_owned(),
                });
            }
        }
        Ok(out)
    }
}
