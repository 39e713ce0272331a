//! API keys: the OS keychain (Secret Service on Linux), with environment variables as the
//! headless fallback. Keys are never written to a file.

use paddock_protocol::ProviderKind;

use crate::HostError;
use paddock_providers::ApiKey;

/// The keychain service name every key is stored under.
pub const KEYCHAIN_SERVICE: &str = "paddock";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// No keychain service answers (no Secret Service on D-Bus, locked, no session bus).
    #[error(
        "no keychain is reachable ({0}). On Linux, Paddock stores keys in the Secret Service: \
         start a keyring daemon (GNOME Keyring or KWallet) and unlock it, or run headless \
         with the key in an environment variable. Keys are never stored in plain text"
    )]
    Unavailable(String),
    #[error("the keychain refused the request: {0}")]
    Failed(String),
}

/// Where keys are kept.
pub trait KeyStore: Send + Sync {
    fn get(&self, provider: ProviderKind) -> Result<Option<String>, KeyError>;
    fn set(&self, provider: ProviderKind, key: &str) -> Result<(), KeyError>;
    /// Removes a key; removing a key that is not there is fine.
    fn delete(&self, provider: ProviderKind) -> Result<(), KeyError>;

    /// A value for `${NAME}` in an MCP server's settings, kept instead of a literal token.
    fn get_var(&self, _name: &str) -> Result<Option<String>, KeyError> {
        Ok(None)
    }

    fn set_var(&self, _name: &str, _value: &str) -> Result<(), KeyError> {
        Err(KeyError::Failed(
            "values cannot be saved here: no keychain is in use".into(),
        ))
    }

    fn delete_var(&self, _name: &str) -> Result<(), KeyError> {
        Ok(())
    }
}

/// The values of the `${NAME}`s the enabled servers read that Paddock's environment does not
/// set, from `store` (the environment wins; unknown names are left to fail at start).
pub fn mcp_vars(
    servers: &std::collections::BTreeMap<String, paddock_protocol::McpServerConfig>,
    store: &dyn KeyStore,
) -> std::collections::BTreeMap<String, String> {
    let names: std::collections::BTreeSet<String> = servers
        .values()
        .filter(|c| !c.disabled)
        .filter_map(|c| paddock_mcp::vars::server_vars(c).ok())
        .flatten()
        .filter(|n| std::env::var_os(n).is_none())
        .collect();
    names
        .into_iter()
        .filter_map(|n| match store.get_var(&n) {
            Ok(Some(v)) => Some((n, v)),
            Ok(None) => None,
            Err(e) => {
                tracing::warn!("keychain value for ${{{n}}} unavailable: {e}");
                None
            }
        })
        .collect()
}

/// The OS keychain via the keyring crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct Keychain;

impl Keychain {
    fn entry(provider: ProviderKind) -> Result<keyring::Entry, KeyError> {
        keyring::Entry::new(KEYCHAIN_SERVICE, provider.as_str()).map_err(classify)
    }

    /// The entry of a `${NAME}` value, apart from the provider keys.
    fn var_entry(name: &str) -> Result<keyring::Entry, KeyError> {
        keyring::Entry::new(KEYCHAIN_SERVICE, &format!("var:{name}")).map_err(classify)
    }

    /// Checks that a keychain answers at all (for `paddock doctor` and the settings screen).
    pub fn probe(&self) -> Result<(), KeyError> {
        self.get(ProviderKind::Anthropic).map(|_| ())
    }
}

fn classify(e: keyring::Error) -> KeyError {
    match e {
        keyring::Error::NoStorageAccess(inner) => KeyError::Unavailable(inner.to_string()),
        keyring::Error::PlatformFailure(inner) => KeyError::Unavailable(inner.to_string()),
        other => KeyError::Failed(other.to_string()),
    }
}

impl KeyStore for Keychain {
    fn get(&self, provider: ProviderKind) -> Result<Option<String>, KeyError> {
        match Self::entry(provider)?.get_password() {
            Ok(key) => Ok(Some(key)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(classify(e)),
        }
    }

    fn set(&self, provider: ProviderKind, key: &str) -> Result<(), KeyError> {
        Self::entry(provider)?.set_password(key).map_err(classify)
    }

    fn delete(&self, provider: ProviderKind) -> Result<(), KeyError> {
        match Self::entry(provider)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(classify(e)),
        }
    }

    fn get_var(&self, name: &str) -> Result<Option<String>, KeyError> {
        match Self::var_entry(name)?.get_password() {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(classify(e)),
        }
    }

    fn set_var(&self, name: &str, value: &str) -> Result<(), KeyError> {
        Self::var_entry(name)?.set_password(value).map_err(classify)
    }

    fn delete_var(&self, name: &str) -> Result<(), KeyError> {
        match Self::var_entry(name)?.delete_credential() {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(classify(e)),
        }
    }
}

/// Keys from environment variables only (headless runs, tests).
#[derive(Debug, Default, Clone, Copy)]
pub struct EnvKeys;

impl KeyStore for EnvKeys {
    fn get(&self, provider: ProviderKind) -> Result<Option<String>, KeyError> {
        Ok(ApiKey::from_env(provider.key_env_var()).map(|k| k.expose().to_owned()))
    }

    fn set(&self, _provider: ProviderKind, _key: &str) -> Result<(), KeyError> {
        Err(KeyError::Failed(
            "keys cannot be saved here: no keychain is in use".into(),
        ))
    }

    fn delete(&self, _provider: ProviderKind) -> Result<(), KeyError> {
        Ok(())
    }
}

/// The key for `provider`: its environment variable when set (an explicit choice for this
/// run), else the store. A missing keychain is only an error when nothing else has a key.
pub fn resolve_key(
    provider: ProviderKind,
    store: Option<&dyn KeyStore>,
) -> Result<Option<ApiKey>, KeyError> {
    if let Some(key) = ApiKey::from_env(provider.key_env_var()) {
        return Ok(Some(key));
    }
    match store {
        Some(store) => match store.get(provider) {
            Ok(key) => Ok(key.filter(|k| !k.is_empty()).map(ApiKey::new)),
            // Which variable: the general advice cannot name it.
            Err(KeyError::Unavailable(why)) => Err(KeyError::Unavailable(format!(
                "{why}; {} is not set either",
                provider.key_env_var()
            ))),
            Err(e) => Err(e),
        },
        None => Ok(None),
    }
}

/// Stores (or with `None` or `""` removes) the keychain value an MCP server's `${name}`
/// reads. The name is a variable's: letters, digits and `_`, not starting with a digit.
pub fn set_mcp_value(
    keys: &dyn KeyStore,
    name: &str,
    value: Option<&str>,
) -> Result<(), HostError> {
    let name = name.trim();
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(crate::error::RequestError::BadVariableName.into());
    }
    match value {
        Some(v) if !v.is_empty() => keys.set_var(name, v),
        _ => keys.delete_var(name),
    }
    .map_err(HostError::from)
}
