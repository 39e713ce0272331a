//! Built-in tools, one per file.

pub mod delegate;

pub use delegate::{DelegateTool, Team, TeamMember};
