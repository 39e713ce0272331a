//! What every Paddock host (the CLI, the desktop app) needs to run a project's agent: the
//! project and its settings with command-line overrides, API keys from the keychain or the
//! environment, the model, the tools (built-ins, teammates, MCP) and the sandbox status.

mod error;
mod keys;
mod mcp;
mod options;
mod project;
mod runtime;

pub use error::{HostError, HostErrorKind};
pub use keys::{EnvKeys, KEYCHAIN_SERVICE, KeyError, KeyStore, Keychain, resolve_key};
pub use mcp::mcp_options;
pub use options::RunOptions;
pub use project::Project;
pub use runtime::{MAIN_AGENT, ProjectRuntime};
