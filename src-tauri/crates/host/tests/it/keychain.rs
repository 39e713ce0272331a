//! The real OS keychain (Secret Service under D-Bus). CI runs this inside a D-Bus session
//! with an unlocked gnome-keyring and sets PADDOCK_REQUIRE_KEYCHAIN=1, so there a missing
//! keychain fails the test; elsewhere it is skipped with a note.

use paddock_host::{KeyStore, Keychain};
use paddock_protocol::ProviderKind;

#[test]
fn a_key_round_trips_through_the_os_keychain() {
    let keychain = Keychain;
    if let Err(e) = keychain.probe() {
        assert!(
            std::env::var_os("PADDOCK_REQUIRE_KEYCHAIN").is_none(),
            "the keychain is required here but unreachable: {e}"
        );
        eprintln!("skipped: no keychain reachable ({e})");
        return;
    }
    let provider = ProviderKind::OpenAiCompatible;
    let secret = format!("sk-test-{}", std::process::id());
    keychain.set(provider, &secret).unwrap();
    assert_eq!(
        keychain.get(provider).unwrap().as_deref(),
        Some(secret.as_str())
    );
    keychain.delete(provider).unwrap();
    assert_eq!(keychain.get(provider).unwrap(), None);
    keychain.delete(provider).unwrap();
}

#[test]
fn an_mcp_variable_round_trips_through_the_os_keychain_and_feeds_its_server() {
    let keychain = Keychain;
    if let Err(e) = keychain.probe() {
        assert!(
            std::env::var_os("PADDOCK_REQUIRE_KEYCHAIN").is_none(),
            "the keychain is required here but unreachable: {e}"
        );
        return;
    }
    let name = format!("PADDOCK_TEST_TOKEN_{}", std::process::id());
    keychain.set_var(&name, "from-the-keychain").unwrap();
    let servers: std::collections::BTreeMap<String, paddock_protocol::McpServerConfig> =
        serde_json::from_value(serde_json::json!({
            "gh": {"url": "https://h/mcp", "headers": {"Authorization": format!("Bearer ${{{name}}}")}},
            "off": {"command": "x", "disabled": true, "env": {"T": "${NEVER_READ_VAR}"}}
        }))
        .unwrap();
    let vars = paddock_host::mcp_vars(&servers, &keychain);
    assert_eq!(
        vars.get(&name).map(String::as_str),
        Some("from-the-keychain")
    );
    assert_eq!(vars.len(), 1, "only what enabled servers read: {vars:?}");
    keychain.delete_var(&name).unwrap();
    assert_eq!(keychain.get_var(&name).unwrap(), None);
}
