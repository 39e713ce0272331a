//! `paddock sessions list|show|search|export|delete`.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, read};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_can_be_listed_shown_searched_exported_and_deleted() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::text("The answer is 42."),
        Reply::text("Blue, mostly."),
    ]);
    let env = Env::new(&server, json!({}));
    let first = env.run(&["exec", "What is the answer?"]).await;
    first.expect_code(0);
    let second = env.run(&["exec", "What colour is the sky?"]).await;
    second.expect_code(0);
    let (a, b) = (first.session_id(), second.session_id());

    let list = env.run(&["sessions", "list"]).await;
    list.expect_code(0);
    assert!(
        list.stdout.contains(&a) && list.stdout.contains(&b),
        "{}",
        list.stdout
    );
    assert!(
        list.stdout.contains("What is the answer?"),
        "{}",
        list.stdout
    );
    let listed: Value =
        serde_json::from_str(&env.run(&["sessions", "list", "--json"]).await.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2);

    let show = env.run(&["sessions", "show", &a]).await;
    show.expect_code(0);
    assert!(
        show.stdout.contains("## You\n\nWhat is the answer?"),
        "{}",
        show.stdout
    );
    assert!(show.stdout.contains("The answer is 42."), "{}", show.stdout);

    let search = env.run(&["sessions", "search", "ANSWER IS"]).await;
    search.expect_code(0);
    assert!(search.stdout.contains(&a), "{}", search.stdout);
    assert!(!search.stdout.contains(&b), "{}", search.stdout);
    let none = env.run(&["sessions", "search", "zebra"]).await;
    none.expect_code(0);
    assert!(none.stdout.is_empty());

    let file = env.project().join("export.json");
    let export = env
        .run(&[
            "sessions",
            "export",
            &a,
            "--format",
            "json",
            "-o",
            file.to_str().unwrap(),
        ])
        .await;
    export.expect_code(0);
    let doc: Value = serde_json::from_str(&read(&file)).unwrap();
    assert_eq!(doc["header"]["id"], json!(a));
    // Private like the session it came from (a transcript can hold what the agent read).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
    assert_eq!(doc["messages"].as_array().unwrap().len(), 2);
    let md = env
        .run(&["sessions", "export", &a, "--format", "markdown"])
        .await;
    md.expect_code(0);
    assert!(
        md.stdout.starts_with("# What is the answer?"),
        "{}",
        md.stdout
    );

    // Another project sees none of these.
    let other = tempfile::tempdir().unwrap();
    let elsewhere = env
        .run(&[
            "sessions",
            "list",
            "--json",
            "--project",
            other.path().to_str().unwrap(),
        ])
        .await;
    elsewhere.expect_code(0);
    assert_eq!(elsewhere.stdout.trim(), "[]");

    env.run(&["sessions", "delete", &a]).await.expect_code(0);
    env.run(&["sessions", "show", &a]).await.expect_code(2);
    env.run(&["sessions", "delete", &a]).await.expect_code(2);
    env.run(&["sessions", "show", "../../etc/passwd"])
        .await
        .expect_code(2);
    let left = env.run(&["sessions", "list"]).await;
    assert!(
        !left.stdout.contains(&a) && left.stdout.contains(&b),
        "{}",
        left.stdout
    );
}
