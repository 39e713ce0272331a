//! Keys for headless runs: the environment variable first (resolved by the host), then the
//! OS keychain. A keychain that is not there only matters to a provider that needs a key.

use paddock_host::{KeyError, KeyStore, Keychain};
use paddock_protocol::ProviderKind;

/// The OS keychain, forgiving when it is missing and the provider can do without a key.
#[derive(Debug, Default, Clone, Copy)]
pub struct CliKeys;

impl KeyStore for CliKeys {
    fn get(&self, provider: ProviderKind) -> Result<Option<String>, KeyError> {
        match Keychain.get(provider) {
            Err(KeyError::Unavailable(why)) if !provider.requires_key() => {
                // Local servers mostly need no key; one that does answers 401, which says
                // which variable to set.
                tracing::info!("no keychain ({why}); running {provider} without a stored key");
                Ok(None)
            }
            other => other,
        }
    }

    fn set(&self, provider: ProviderKind, key: &str) -> Result<(), KeyError> {
        Keychain.set(provider, key)
    }

    fn delete(&self, provider: ProviderKind) -> Result<(), KeyError> {
        Keychain.delete(provider)
    }

    /// A missing keychain leaves the variable unset: its server fails to start, naming it.
    fn get_var(&self, name: &str) -> Result<Option<String>, KeyError> {
        match Keychain.get_var(name) {
            Err(KeyError::Unavailable(_)) => Ok(None),
            other => other,
        }
    }
}
