//! The grants screen's work: per-tool grants, the preset, argument rules, "Test a call" and
//! "Always allow" from an approval card, over the host's settings, rules and runs.

use std::path::Path;

use paddock_host::RunLimits;
use paddock_host::rules::{add_allow_rules, compile, explain, input_for};
use paddock_protocol::{
    ApprovalDecision, CallExplanation, Grant, ProjectSettings, RuleEntry, ToolGrantInfo, ToolPreset,
};

use crate::error::{AppResult, ToAppError, invalid};
use crate::projects;
use crate::state::Desktop;

/// Most rules one tool may be given from the app at once.
const MAX_TOOL_RULES: usize = 200;

/// Every tool with its effective grant and why, under the settings in force.
pub async fn list(desktop: &Desktop, root: &Path) -> AppResult<Vec<ToolGrantInfo>> {
    let settings = projects::effective_settings(&desktop.service, root)?;
    grants_under(desktop, root, &settings).await
}

/// Puts the rules now in the settings in the project's book: runs going on meet them at
/// their next call. Returns the settings read.
fn reload_rules(desktop: &Desktop, root: &Path) -> AppResult<ProjectSettings> {
    let settings = projects::effective_settings(&desktop.service, root)?;
    desktop
        .project(root)
        .reload_rules(&settings)
        .map_err(ToAppError::app_error)?;
    Ok(settings)
}

async fn grants_under(
    desktop: &Desktop,
    root: &Path,
    settings: &ProjectSettings,
) -> AppResult<Vec<ToolGrantInfo>> {
    desktop
        .project(root)
        .grants(settings)
        .await
        .map_err(ToAppError::app_error)
}

/// Sets (or with `None` removes) one tool's grant.
pub async fn set_grant(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    grant: Option<Grant>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let tool = named(tool)?;
    projects::update_settings(desktop.trust(), root, |s| match grant {
        Some(g) => {
            s.tools.insert(tool, g);
        }
        None => {
            s.tools.remove(&tool);
        }
    })?;
    list(desktop, root).await
}

pub async fn set_preset(
    desktop: &Desktop,
    root: &Path,
    preset: Option<ToolPreset>,
) -> AppResult<Vec<ToolGrantInfo>> {
    projects::update_settings(desktop.trust(), root, |s| s.preset = preset)?;
    list(desktop, root).await
}

/// Replaces one tool's argument rules (the grants screen reorders and deletes them).
pub async fn set_rules(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    rules: Vec<RuleEntry>,
) -> AppResult<Vec<ToolGrantInfo>> {
    let tool = named(tool)?;
    if rules.len() > MAX_TOOL_RULES {
        return Err(invalid(format!("at most {MAX_TOOL_RULES} rules per tool")));
    }
    projects::try_update_settings(desktop.trust(), root, |s| {
        if rules.is_empty() {
            s.rules.remove(&tool);
        } else {
            s.rules.insert(tool, rules);
        }
        compile(s).map(|_| ())
    })?;
    // One read of the settings serves the reload and the answer.
    let settings = reload_rules(desktop, root)?;
    grants_under(desktop, root, &settings).await
}

/// What the grants and rules in force would do with a call (a command for bash, a path for
/// the file tools, JSON for others), without running it.
pub fn explain_call(
    desktop: &Desktop,
    root: &Path,
    tool: &str,
    call: &str,
) -> AppResult<CallExplanation> {
    let tool = named(tool)?;
    let settings = projects::effective_settings(&desktop.service, root)?;
    let project = paddock_host::Project {
        root: root.to_path_buf(),
        settings,
    };
    let input = input_for(&tool, call).map_err(ToAppError::app_error)?;
    explain(&project, &RunLimits::interactive(), &tool, &input).map_err(ToAppError::app_error)
}

/// "Always allow" on an approval card: saves the (possibly edited) rules to the project's
/// settings as the user's own change, applies them to the runs going on, and lets this
/// call run once.
pub fn always_allow(
    desktop: &Desktop,
    root: &Path,
    session: &str,
    request_id: &str,
    tool: &str,
    patterns: &[String],
) -> AppResult<()> {
    let tool = named(tool)?;
    projects::try_update_settings(desktop.trust(), root, |s| {
        add_allow_rules(s, &tool, patterns)
    })?;
    reload_rules(desktop, root)?;
    tracing::info!(tool, rules = patterns.len(), "rule saved from an approval");
    desktop
        .runs()
        .approve(root, session, request_id, ApprovalDecision::Once)
        .map_err(ToAppError::app_error)
}

fn named(tool: &str) -> AppResult<String> {
    let tool = tool.trim();
    if tool.is_empty() {
        return Err(invalid("no tool name given"));
    }
    Ok(tool.to_owned())
}
