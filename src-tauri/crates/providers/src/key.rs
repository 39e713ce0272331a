//! API keys: held in memory only, never printed.

use std::fmt;

/// A vendor API key. `Debug` prints a placeholder, there is no `Display`, and the key is
/// only read where a request header is built.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key, trimming the whitespace a paste or a file often adds.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into().trim().to_owned())
    }

    /// Reads a key from an environment variable; empty values count as unset.
    pub fn from_env(var: &str) -> Option<Self> {
        std::env::var(var)
            .ok()
            .map(Self::new)
            .filter(|k| !k.is_empty())
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The secret itself: only for building request headers or storing it in a keychain.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Replaces every occurrence of the key in `text` (vendors sometimes echo it back).
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 {
            return text.to_owned();
        }
        text.replace(&self.0, "[redacted]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_key() {
        let key = ApiKey::new("  sk-secret-123  ");
        assert_eq!(key.expose(), "sk-secret-123");
        let shown = format!("{key:?} {:?}", Some(&key));
        assert!(!shown.contains("secret"), "{shown}");
    }

    #[test]
    fn redacts_echoed_keys() {
        let key = ApiKey::new("sk-secret-123");
        assert_eq!(
            key.redact("Incorrect API key provided: sk-secret-123."),
            "Incorrect API key provided: [redacted]."
        );
    }
}
