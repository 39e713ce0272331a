use std::collections::BTreeMap;
use std::sync::Arc;

use paddock_protocol::ToolSpec;

use super::Tool;

/// Vendors accept tool names of 1-64 characters from `[A-Za-z0-9_-]`.
const MAX_NAME_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("a tool named '{0}' is already registered")]
    Duplicate(String),
    #[error("invalid tool name '{0}': use 1-64 letters, digits, '_' or '-'")]
    InvalidName(String),
}

struct Entry {
    tool: Arc<dyn Tool>,
    runtime: bool,
}

/// Every tool that exists, by name. Whether an agent may use one is the grants' business.
#[derive(Default)]
pub struct ToolRegistry {
    entries: BTreeMap<String, Entry>,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers a built-in tool: visible only through a preset or an allow list.
    pub fn register(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.insert(tool, false)
    }

    /// Registers a tool added at run time (MCP): it skips preset and allow list but still
    /// obeys the deny list.
    pub fn register_runtime(&mut self, tool: Arc<dyn Tool>) -> Result<(), RegistryError> {
        self.insert(tool, true)
    }

    fn insert(&mut self, tool: Arc<dyn Tool>, runtime: bool) -> Result<(), RegistryError> {
        let name = tool.spec().name.clone();
        if !valid_name(&name) {
            return Err(RegistryError::InvalidName(name));
        }
        if self.entries.contains_key(&name) {
            return Err(RegistryError::Duplicate(name));
        }
        self.entries.insert(name, Entry { tool, runtime });
        Ok(())
    }

    pub fn get(&self, name: &str) -> Option<&Arc<dyn Tool>> {
        self.entries.get(name).map(|e| &e.tool)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.entries.contains_key(name)
    }

    pub fn is_runtime(&self, name: &str) -> bool {
        self.entries.get(name).is_some_and(|e| e.runtime)
    }

    /// Names in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Every tool with its name, in sorted order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Arc<dyn Tool>)> {
        self.entries.iter().map(|(n, e)| (n.as_str(), &e.tool))
    }

    pub fn spec(&self, name: &str) -> Option<&ToolSpec> {
        self.entries.get(name).map(|e| e.tool.spec())
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
