//! bash's network as an allow-list in a headless run: `--allow-host` and the `network`
//! setting let a host through Paddock's proxy; anything else is refused (nobody can answer a
//! question here), with the reason in the tool's result.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::json;

use crate::common::{Counter, Env, chat_bodies, tool_contents};

/// A fetch through the proxy variables. The host's loopback is what the test can serve;
/// `no_proxy` (which names it for servers inside the wall) is cleared so the proxy is used.
fn fetch(url: &str) -> String {
    format!(
        "no_proxy= NO_PROXY= /usr/bin/python3 -c \"import urllib.request as u; \
         u.urlopen('{url}/', timeout=10)\" 2>&1 | tail -1; echo fetched"
    )
}

async fn bash_run(env: &Env, server: &FakeServer, command: &str, extra: &[&str]) -> String {
    server.push_all([
        Reply::tool_call("bash", json!({"command": command})),
        Reply::text("done"),
    ]);
    let mut args = vec!["exec", "--preset", "full"];
    args.extend_from_slice(extra);
    args.push("go");
    env.run(&args).await.expect_code(0);
    chat_bodies(server)
        .last()
        .map(tool_contents)
        .and_then(|r| r.into_iter().next())
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allow_host_lets_one_host_through_and_the_rest_is_refused() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({"network": {"deny": ["blocked.example"]}}));
    let target = Counter::start().await;
    let authority = target.url.trim_start_matches("http://").to_owned();

    let refused = bash_run(&env, &server, &fetch(&target.url), &[]).await;
    assert_eq!(target.hits(), 0, "nothing allows the host: {refused}");
    assert!(
        refused.contains(&format!("refused {authority}")),
        "the refusal is in the result: {refused}"
    );

    let allowed = bash_run(
        &env,
        &server,
        &fetch(&target.url),
        &["--allow-host", &authority],
    )
    .await;
    assert!(
        target.hits() >= 1,
        "the allowed host was reached: {allowed}"
    );
    assert!(
        allowed.contains(&format!("allowed {authority}")),
        "{allowed}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_allow_host_is_a_usage_error() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let run = env
        .run(&["exec", "--allow-host", "https://example.com/", "go"])
        .await;
    run.expect_code(2);
    assert!(run.stderr.contains("--allow-host"), "{}", run.stderr);
}

/// `rules explain --host` answers from the rules in effect: a folder's allow rule waits for
/// trust (and is said to), its deny rule applies at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_explain_host_names_the_deciding_rule_and_what_waits_for_trust() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    env.write_untrusted_settings(
        r#"{"version": 1, "network": {"allow": ["*.example.com"], "deny": ["bad.example.com"]}}"#,
    );
    let run = env
        .run(&["rules", "explain", "--host", "api.example.com"])
        .await;
    run.expect_code(0);
    assert!(
        run.stdout.contains("api.example.com:443: asked about"),
        "the untrusted allow rule does not count: {}",
        run.stdout
    );
    assert!(
        run.stderr.contains("network.allow.*.example.com"),
        "{}",
        run.stderr
    );
    let run = env
        .run(&["rules", "explain", "--json", "--host", "BAD.example.com:80"])
        .await;
    run.expect_code(0);
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["decision"], "deny");
    assert_eq!(v["rule"], "network.deny[0]");
    assert_eq!(v["target"], "bad.example.com:80");

    env.run(&["trust", "--yes"]).await.expect_code(0);
    let run = env
        .run(&["rules", "explain", "--host", "api.example.com"])
        .await;
    assert!(
        run.stdout
            .contains("api.example.com:443: reached through the proxy — api.example.com:443 is allowed by network.allow[0]"),
        "{}",
        run.stdout
    );
}

/// A program that goes straight to `127.0.0.1:PORT` (as NO_PROXY tells it to) reaches the
/// host's server when a rule names that port: inside the wall the port is a tunnel to the
/// proxy. A port no rule names leads nowhere.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_named_loopback_port_is_reached_directly_and_no_other() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({}));
    let named = Counter::start().await;
    let other = Counter::start().await;
    let authority = named.url.trim_start_matches("http://").to_owned();
    let direct = |url: &str| {
        format!(
            "/usr/bin/python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', \
             {port}), timeout=5); s.sendall(b'GET / HTTP/1.0\\r\\n\\r\\n'); s.recv(10)\" 2>&1 \
             | tail -1; echo tried",
            port = url.rsplit(':').next().unwrap_or_default()
        )
    };
    let command = format!("{}; {}", direct(&named.url), direct(&other.url));
    let said = bash_run(&env, &server, &command, &["--allow-host", &authority]).await;
    assert!(named.hits() >= 1, "the named port was not reached: {said}");
    assert_eq!(other.hits(), 0, "a port no rule names was reached: {said}");
}
