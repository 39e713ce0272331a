//! bash's network as an allow-list: the proxy outside the wall is the only way out. Each
//! case is shown able to fail: what the wall stops works with plain `bash -c`, and what the
//! proxy refuses is reached when the policy allows it.
#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::sync::Arc;

use paddock_net::{CallLimits, NetworkPolicy, Proxy, StaticResolver};
use paddock_protocol::{ProtectionKind, ProtectionState, SandboxEngine};
use paddock_sandbox::Engine;
use paddock_tools::{NetworkFence, ToolEnv};
use serde_json::json;

use crate::tools_support::{Seen, call};
use crate::wall::{PY, Wall, wall};

pub(crate) const PAGE: &str = "PAGE-FROM-THE-SERVER";

/// An HTTP server on the host's loopback answering every request with `PAGE`.
pub(crate) fn server() -> u16 {
    serve(None)
}

/// With `redirect`, every request is sent there (302) instead.
pub(crate) fn serve(redirect: Option<String>) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let redirect = redirect.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let reply = match &redirect {
                    Some(to) => format!(
                        "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\n\
                         Connection: close\r\n\r\n"
                    ),
                    None => format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{PAGE}",
                        PAGE.len()
                    ),
                };
                let _ = stream.write_all(reply.as_bytes());
            });
        }
    });
    port
}

/// The wall's environment with an allow-list: `allowed.test` (and the loopback address it
/// resolves to, named explicitly, as a private address must be) allowed, `denied.test`
/// denied, everything else asked about, which headless means refused.
pub(crate) fn fenced(w: &Wall, allow: &[String]) -> ToolEnv {
    let policy = NetworkPolicy::from_lists(allow, &[], &["denied.test".to_owned()]).unwrap();
    let loopback = [IpAddr::V4(Ipv4Addr::LOCALHOST)];
    let resolver = StaticResolver::new()
        .with("allowed.test", loopback)
        .with("denied.test", loopback)
        .with("unlisted.test", loopback);
    let fence = NetworkFence::new(
        Proxy::builder(policy).resolver(Arc::new(resolver)),
        CallLimits::default(),
    );
    let mut env = ToolEnv::clone(&w.env);
    env.sandbox.network_rules = Some(fence.rule_count());
    env.network = Some(fence);
    env
}

pub(crate) fn allowing(port: u16) -> Vec<String> {
    vec!["allowed.test".to_owned(), format!("127.0.0.1:{port}")]
}

/// Python's urllib, which follows the proxy variables as most tools do.
pub(crate) fn fetch(host: &str, port: u16) -> String {
    format!(
        "{PY} -c \"import urllib.request as u; print(u.urlopen('http://{host}:{port}/', \
         timeout=10).read().decode())\" 2>&1 | tail -1"
    )
}

pub(crate) async fn run(env: &ToolEnv, command: &str) -> Seen {
    call(env, "bash", json!({"command": command})).await
}

#[tokio::test]
async fn an_allowed_host_is_reached_through_the_proxy_and_said_in_the_result() {
    let Some(w) = wall() else { return };
    let port = server();
    let env = fenced(&w, &allowing(port));
    let status = env.sandbox_status();
    let network = status.protection(ProtectionKind::Network).unwrap();
    assert_eq!(network.state, ProtectionState::Enforced);
    assert!(network.detail.contains("allow-list"), "{}", network.detail);

    let seen = run(&env, &fetch("allowed.test", port)).await;
    assert!(seen.text.contains(PAGE), "{}", seen.text);
    assert!(
        seen.text.contains(&format!("allowed allowed.test:{port}")),
        "the connection is in the result: {}",
        seen.text
    );
    // The variables the usual tools read point at the bridge inside the wall.
    let seen = run(
        &env,
        "echo $HTTPS_PROXY $npm_config_https_proxy $CARGO_HTTP_PROXY",
    )
    .await;
    assert_eq!(
        seen.text.matches("http://127.0.0.1:").count(),
        3,
        "{}",
        seen.text
    );
}

#[tokio::test]
async fn denied_and_unlisted_hosts_are_refused_by_the_proxy_with_the_reason() {
    let Some(w) = wall() else { return };
    let port = server();
    // Able to fail: the same names reach the page when the policy allows them.
    let open = fenced(
        &w,
        &["unlisted.test".to_owned(), format!("127.0.0.1:{port}")],
    );
    assert!(
        run(&open, &fetch("unlisted.test", port))
            .await
            .text
            .contains(PAGE)
    );

    let env = fenced(&w, &allowing(port));
    let denied = run(&env, &fetch("denied.test", port)).await;
    assert!(!denied.text.contains(PAGE), "{}", denied.text);
    assert!(
        denied.text.contains(&format!("refused denied.test:{port}"))
            && denied.text.contains("deny"),
        "{}",
        denied.text
    );
    let unlisted = run(&env, &fetch("unlisted.test", port)).await;
    assert!(!unlisted.text.contains(PAGE), "{}", unlisted.text);
    assert!(
        unlisted
            .text
            .contains(&format!("refused unlisted.test:{port}")),
        "{}",
        unlisted.text
    );
}

/// A name that resolves to a private address needs a rule naming the address: allowing
/// the name alone reaches nothing on the host's loopback.
#[tokio::test]
async fn an_allowed_name_on_a_private_address_is_refused() {
    let Some(w) = wall() else { return };
    let port = server();
    let env = fenced(&w, &["allowed.test".to_owned()]);
    let seen = run(&env, &fetch("allowed.test", port)).await;
    assert!(!seen.text.contains(PAGE), "{}", seen.text);
    assert!(seen.text.contains("refused allowed.test"), "{}", seen.text);
}

/// With the proxy in place, nothing else leaves: not a direct connection to the host's
/// loopback, not the proxy variables ignored, not a name looked up inside.
#[tokio::test]
async fn the_proxy_is_the_only_way_out() {
    let Some(w) = wall() else { return };
    let port = server();
    let mut env = fenced(&w, &allowing(port));
    let direct = format!("exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED");
    let (_, plain) = w.plain(&direct);
    assert!(plain.contains("CONNECTED"), "{plain}");
    assert!(!run(&env, &direct).await.text.contains("CONNECTED"));
    let ignoring = format!("no_proxy='*' {}", fetch("allowed.test", port));
    assert!(!run(&env, &ignoring).await.text.contains(PAGE));
    let dns = format!("{PY} -c \"import socket; print(socket.gethostbyname('allowed.test'))\"");
    assert!(!run(&env, &dns).await.text.contains("127.0.0.1"));

    // The helper's own namespaces carry the same way out.
    env.sandbox.strongest = Some(Engine::Namespaces);
    assert_eq!(env.sandbox_status().engine, SandboxEngine::Namespaces);
    assert!(
        run(&env, &fetch("allowed.test", port))
            .await
            .text
            .contains(PAGE)
    );
    assert!(!run(&env, &direct).await.text.contains("CONNECTED"));

    // Landlock alone has no network namespace to make the proxy the only way: no network.
    env.sandbox.strongest = Some(Engine::Landlock);
    let status = env.sandbox_status();
    let network = status.protection(ProtectionKind::Network).unwrap();
    assert!(
        network.detail.contains("needs a network namespace"),
        "{}",
        network.detail
    );
    assert!(
        !run(&env, &fetch("allowed.test", port))
            .await
            .text
            .contains(PAGE)
    );
}

/// A host no rule names is put to the user while the connection waits: yes reaches it for
/// this call, no refuses it. Where nobody answers — even a run that lets Ask tools run
/// unasked — it is refused: only a rule widens the network.
#[tokio::test]
async fn an_unlisted_host_is_asked_about_and_only_a_person_allows_it() {
    use paddock_core::{Approvals, AskPolicy};
    use paddock_protocol::{ApprovalDecision, CallPreview};

    let Some(w) = wall() else { return };
    let port = server();
    let env = fenced(&w, &[format!("127.0.0.1:{port}")]);
    let command = fetch("unlisted.test", port);

    let (yes, previews) =
        crate::wall_autorun::bash_answered(&env, &command, ApprovalDecision::Once).await;
    assert!(yes.text.contains(PAGE), "{}", yes.text);
    assert!(
        matches!(
            previews.as_slice(),
            [Some(CallPreview::Network { host, port: p, .. })] if host == "unlisted.test" && *p == port
        ),
        "{previews:?}"
    );
    let (no, _) = crate::wall_autorun::bash_answered(&env, &command, ApprovalDecision::Deny).await;
    assert!(!no.text.contains(PAGE), "{}", no.text);
    assert!(no.text.contains("refused unlisted.test"), "{}", no.text);

    let mut kit = crate::tools_support::context(env.clone(), Default::default());
    kit.ctx.approvals = Arc::new(Approvals::new(AskPolicy::HeadlessAllow));
    let unasked = crate::tools_support::call_with(&kit, "bash", json!({"command": command})).await;
    assert!(!unasked.text.contains(PAGE), "{}", unasked.text);
}

/// A real install from the npm registry through the allow-list: with the npm preset's
/// hosts it works, without them it is refused. Needs the registry, as `npm ci` of the UI
/// does on the same machine.
#[tokio::test]
async fn npm_install_works_with_the_npm_preset_and_not_without() {
    let Some(w) = wall() else { return };
    let (_, reach) = w.plain("npm view left-pad version --prefer-online 2>&1");
    assert!(
        reach.trim().starts_with("1."),
        "the npm registry is not reachable from this machine, so this case proves nothing: {reach}"
    );
    let preset = paddock_protocol::NetworkPreset::Npm;
    let hosts: Vec<String> = preset.hosts().iter().map(|h| (*h).to_owned()).collect();
    let install = "export npm_config_cache=$TMPDIR/npm-cache; npm init -y >/dev/null && \
                   npm install left-pad --no-audit --no-fund --prefer-online 2>&1 | tail -3; \
                   test -f node_modules/left-pad/package.json && echo INSTALLED";
    let without = fenced(&w, &["example.org".to_owned()]);
    let seen = run(&without, install).await;
    assert!(!seen.text.contains("INSTALLED"), "{}", seen.text);
    assert!(
        seen.text.contains("refused registry.npmjs.org:443"),
        "{}",
        seen.text
    );
    let _ = std::fs::remove_dir_all(w.ws.join("node_modules"));

    // The real names, resolved by the system.
    let fence = NetworkFence::new(
        Proxy::builder(NetworkPolicy::from_lists(&hosts, &[], &[]).unwrap()),
        CallLimits::default(),
    );
    let mut with = ToolEnv::clone(&w.env);
    with.sandbox.network_rules = Some(fence.rule_count());
    with.network = Some(fence);
    let seen = run(&with, install).await;
    assert!(seen.text.contains("INSTALLED"), "{}", seen.text);
    assert!(
        seen.text.contains("allowed registry.npmjs.org:443"),
        "{}",
        seen.text
    );
}

/// A redirect is the client's own new request, decided again: an allowed host sending bash
/// on to a denied one gets the denied one refused. Able to fail: the same redirect to an
/// allowed host is followed to the page.
#[tokio::test]
async fn a_redirect_to_a_denied_host_is_refused() {
    let Some(w) = wall() else { return };
    let target = server();
    let to_denied = serve(Some(format!("http://denied.test:{target}/")));
    let to_allowed = serve(Some(format!("http://allowed.test:{target}/")));
    let env = fenced(
        &w,
        &[
            "allowed.test".to_owned(),
            format!("127.0.0.1:{target}"),
            format!("127.0.0.1:{to_denied}"),
            format!("127.0.0.1:{to_allowed}"),
        ],
    );
    let followed = run(&env, &fetch("allowed.test", to_allowed)).await;
    assert!(followed.text.contains(PAGE), "{}", followed.text);
    let refused = run(&env, &fetch("allowed.test", to_denied)).await;
    assert!(!refused.text.contains(PAGE), "{}", refused.text);
    assert!(
        refused
            .text
            .contains(&format!("allowed allowed.test:{to_denied}"))
            && refused
                .text
                .contains(&format!("refused denied.test:{target}")),
        "{}",
        refused.text
    );
}
