use std::path::Path;

use paddock_mcp::{McpOptions, ServerPath};
use paddock_protocol::ProviderKind;

/// How a host starts a project's MCP servers: in the project folder, with `path`, and
/// without the environment variables that hold provider API keys.
pub fn mcp_options(project_root: &Path, path: ServerPath) -> McpOptions {
    let mut hide_env = Vec::new();
    for p in ProviderKind::ALL {
        hide_env.push(p.key_env_var().to_owned());
    }
    McpOptions {
        path,
        base_dir: Some(project_root.to_path_buf()),
        hide_env,
        ..McpOptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_keys_are_hidden_from_servers() {
        let o = mcp_options(Path::new("/p"), ServerPath::LoginShell);
        assert!(o.hide_env.iter().any(|v| v == "ANTHROPIC_API_KEY"));
        assert!(o.hide_env.iter().any(|v| v == "OPENAI_API_KEY"));
        assert_eq!(o.base_dir.as_deref(), Some(Path::new("/p")));
        assert_eq!(o.path, ServerPath::LoginShell);
    }
}
