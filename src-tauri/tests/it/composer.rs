//! The composer's model picker: the chosen model is saved to the project and the next
//! prompt, in the same session, goes to it.

use std::sync::Arc;

use paddock_desktop::runs;
use paddock_fake_model::{FakeServer, Reply};
use paddock_host::edit::Edit;
use paddock_protocol::{AppError, AppErrorCode};
use serde_json::json;
use tokio::sync::mpsc;

use crate::common::{events_until, finished, setup};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_picked_model_answers_the_next_prompt() {
    let fake = FakeServer::start().await.unwrap();
    fake.push(Reply::text("one"));
    fake.push(Reply::text("two"));
    let s = setup(&fake, json!({}));
    let (tx, mut rx) = mpsc::unbounded_channel();
    let id = runs::send_prompt(
        &s.desktop,
        &s.root,
        None,
        "first",
        None,
        Arc::new(tx.clone()),
    )
    .await
    .unwrap();
    events_until(&mut rx, finished).await;

    let info = Edit::new(s.desktop.trust(), &s.root)
        .choose_model(" other-model ")
        .unwrap();
    assert_eq!(info.settings.unwrap().model.as_deref(), Some("other-model"));
    let empty = AppError::from(
        Edit::new(s.desktop.trust(), &s.root)
            .choose_model("  ")
            .unwrap_err(),
    );
    assert_eq!(empty.code, AppErrorCode::Invalid);

    runs::send_prompt(&s.desktop, &s.root, Some(id), "second", None, Arc::new(tx))
        .await
        .unwrap();
    events_until(&mut rx, finished).await;
    let models: Vec<String> = fake
        .model_requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(models, ["fake-model", "other-model"]);
}
