//! The user's external agents from the app: the "Add agent" form's save and remove, each
//! answering with the list as it now is (one host function each, as the CLI calls them).

use paddock_protocol::{ExternalAgentConfig, ExternalAgentInfo};

use crate::error::AppResult;
use crate::state::Desktop;

pub fn save(
    state: &Desktop,
    name: &str,
    config: ExternalAgentConfig,
    replace: bool,
) -> AppResult<Vec<ExternalAgentInfo>> {
    let dir = state.trust().config_dir();
    paddock_host::external::save(dir, name, config, replace)?;
    Ok(paddock_host::external::list(dir)?)
}

pub fn remove(state: &Desktop, name: &str) -> AppResult<Vec<ExternalAgentInfo>> {
    let dir = state.trust().config_dir();
    paddock_host::external::remove(dir, name)?;
    Ok(paddock_host::external::list(dir)?)
}
