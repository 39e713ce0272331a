//! Files generated from these types and committed for the UI and the docs (the TypeScript
//! bindings, the settings schema, shared test cases). Each has a test that rewrites it with
//! `PADDOCK_UPDATE_GENERATED=1` set and otherwise fails while the committed copy is stale.

use std::path::Path;

/// Rewrites `path` with `generated` when `PADDOCK_UPDATE_GENERATED` is set; then an error
/// naming `how` to regenerate it unless the committed file is exactly `generated`.
#[doc(hidden)]
pub fn check_committed(path: &Path, generated: &str, how: &str) -> Result<(), String> {
    if std::env::var_os("PADDOCK_UPDATE_GENERATED").is_some() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(path, generated).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed == generated {
        Ok(())
    } else {
        Err(format!(
            "{} is stale: run PADDOCK_UPDATE_GENERATED=1 {how}",
            path.display()
        ))
    }
}
