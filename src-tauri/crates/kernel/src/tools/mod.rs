//! Built-in tools, one per file.

pub mod bash;
mod bash_output;
pub mod delegate;
pub mod file_edit;
pub mod file_read;
pub mod file_write;
pub mod glob;
pub mod grep;
mod walk;

pub use bash::BashTool;
pub use delegate::{DelegateTool, Team, TeamMember};
pub use file_edit::FileEditTool;
pub use file_read::FileReadTool;
pub use file_write::FileWriteTool;
pub use glob::GlobTool;
pub use grep::GrepTool;
pub use walk::SKIPPED_DIRS;

use crate::sandbox::PathError;
use crate::tool::{RegistryError, ToolError, ToolRegistry, typed};

/// Registers file_read, file_write, file_edit, grep, glob and bash. They stay invisible to
/// an agent until a preset or allow list grants them; `delegate_to_agent` needs a team and
/// is registered on its own.
pub fn register_builtin_tools(registry: &mut ToolRegistry) -> Result<(), RegistryError> {
    registry.register(typed(FileReadTool))?;
    registry.register(typed(FileWriteTool))?;
    registry.register(typed(FileEditTool))?;
    registry.register(typed(GrepTool))?;
    registry.register(typed(GlobTool))?;
    registry.register(typed(BashTool))?;
    Ok(())
}

/// Runs blocking file-system work off the async threads; a panic becomes a failure.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ToolError::Failed(format!("the tool stopped unexpectedly: {e}")))?
}

fn path_error(e: PathError) -> ToolError {
    ToolError::Failed(e.to_string())
}

fn count_lines(text: &str) -> usize {
    text.lines().count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::ToolPreset;

    #[test]
    fn registers_every_preset_tool_with_a_description() {
        let mut registry = ToolRegistry::new();
        register_builtin_tools(&mut registry).unwrap();
        for name in ToolPreset::Full.tools() {
            let spec = registry.spec(name).unwrap();
            assert!(spec.description.len() > 40, "{name}: {}", spec.description);
            assert_eq!(spec.input_schema["type"], "object", "{name}");
        }
        assert_eq!(registry.len(), ToolPreset::Full.tools().len());
    }
}
