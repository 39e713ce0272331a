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
