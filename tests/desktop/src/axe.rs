//! The accessibility audit: axe-core (from the UI's node_modules) run in the app's own page,
//! failing on serious or critical findings.

use std::path::PathBuf;

use crate::{App, Result, repo_root};

/// axe-core's bundle, installed with the UI's dev dependencies.
pub fn axe_script() -> PathBuf {
    repo_root().join("ui/node_modules/axe-core/axe.min.js")
}

/// Runs axe-core on the page as it is now; returns the serious and critical violations as
/// `rule (impact): target …` lines, or an error when axe cannot run.
pub async fn audit(app: &App) -> Result<Vec<String>> {
    let source = std::fs::read_to_string(axe_script())
        .map_err(|e| format!("axe-core missing ({e}): npm ci --prefix ui"))?;
    app.wd.execute(&source, Vec::new()).await?;
    let found = app
        .wd
        .execute(
            r#"
            const done = arguments[arguments.length - 1];
            return axe.run(document, { resultTypes: ['violations'] }).then((r) =>
              r.violations
                .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`));
            "#,
            Vec::new(),
        )
        .await?;
    let lines: Vec<String> = serde_json::from_value(found.json().clone())?;
    Ok(lines)
}
