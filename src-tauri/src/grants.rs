//! The grants screen's work over the host: every tool with its grant and why, under the
//! settings in effect (a change is one call of the host's `edit`, which also hands the
//! project's live rule book the new rules), "Test a call" and "Always allow".

use std::path::Path;

use paddock_host::Resolved;
use paddock_host::RunLimits;
use paddock_host::edit::{Edit, in_effect};
use paddock_host::explain::{explain, input_for};
use paddock_protocol::{
    ApprovalDecision, CallExplanation, Grant, NetworkSettings, NetworkView, RuleEntry,
    ToolGrantInfo, ToolPreset,
};

use crate::error::AppResult;
use crate::state::Desktop;

/// Every tool with its effective grant and why, under the settings in effect.
pub async fn list(desktop: &Desktop, root: &Path) -> AppResult<Vec<ToolGrantInfo>> {
    let now = in_effect(desktop.trust(), root)?;
    grants_under(desktop, root, now).await
}

async fn grants_under(
    desktop: &Desktop,
    root: &Path,
    now: Resolved,
) -> AppResult<Vec<ToolGrantInfo>> {
    Ok(desktop.project(root).grants(&now).await?)
}

/// The project's settings file, edited by its user, with its live rules kept in step.
fn edit<'a>(desktop: &'a Desktop, root: &'a Path, live: &'a paddock_host::LiveProject) -> Edit<'a> {
    Edit::new(desktop.trust(), root).live(live)
}

/// Sets (or with `None` removes) one tool's grant.
pub async fn set_grant(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    grant: Option<Grant>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let live = desktop.project(root);
    let now = edit(desktop, root, &live).set_grant(tool, grant)?;
    grants_under(desktop, root, now).await
}

pub async fn set_preset(
    desktop: &Desktop,
    root: &Path,
    preset: Option<ToolPreset>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let live = desktop.project(root);
    let now = edit(desktop, root, &live).set_preset(preset)?;
    grants_under(desktop, root, now).await
}

/// Replaces one tool's argument rules (the grants screen reorders and deletes them).
pub async fn set_rules(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    rules: Vec<RuleEntry>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let live = desktop.project(root);
    let now = edit(desktop, root, &live).set_rules(tool, rules)?;
    grants_under(desktop, root, now).await
}

/// What the grants and rules in force would do with a call (a command for bash, a path for
/// the file tools, JSON for others), without running it.
pub fn explain_call(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    call: &str,
) -> AppResult<CallExplanation> {
    let project = in_effect(desktop.trust(), root)?.project();
    let tool = tool.trim();
    let input = input_for(tool, call)?;
    let config = desktop.trust().config_dir();
    Ok(explain(
        &project,
        &RunLimits::interactive(),
        tool,
        &input,
        config,
    )?)
}

/// "Always allow" on an approval card: saves the (possibly edited) rules as the user's own
/// change (applied to the runs going on; an external agent's to its entry in agents.json),
/// and lets this call run once.
pub fn always_allow(
    desktop: &Desktop,
    root: &Path,
    session: &str,
    request_id: &str,
    tool: &str,
    patterns: &[String],
) -> AppResult<()> {
    // An external agent's tools are its own: its rules go in the user's agents file.
    match crate::runs::agent_of(desktop, root, session) {
        Some(agent) => {
            paddock_host::external::allow(desktop.trust().config_dir(), &agent, patterns)?;
        }
        None => {
            let live = desktop.project(root);
            edit(desktop, root, &live).allow(tool, patterns)?;
        }
    }
    Ok(desktop
        .runs()
        .approve(root, session, request_id, ApprovalDecision::Once)?)
}

/// The grants screen's Network section under the settings in effect.
pub fn network_view(desktop: &Desktop, root: &Path) -> AppResult<NetworkView> {
    let now = in_effect(desktop.trust(), root)?;
    Ok(paddock_host::network::view(now.written(), now.settings()))
}

/// Replaces the `network` setting (the user's change: trusted, applied to runs going on).
pub fn set_network(
    desktop: &Desktop,
    root: &Path,
    network: NetworkSettings,
) -> AppResult<NetworkView> {
    let live = desktop.project(root);
    let now = edit(desktop, root, &live).set_network(network)?;
    Ok(paddock_host::network::view(now.written(), now.settings()))
}

/// "Always for this project" on a network card: saves `rule` to `network.allow` (runs going
/// on meet it at their next connection) and lets the waiting connection through.
pub fn always_allow_host(
    desktop: &Desktop,
    root: &Path,
    session: &str,
    request_id: &str,
    rule: &str,
) -> AppResult<()> {
    let live = desktop.project(root);
    edit(desktop, root, &live).allow_host(rule)?;
    Ok(desktop
        .runs()
        .approve(root, session, request_id, ApprovalDecision::Once)?)
}
