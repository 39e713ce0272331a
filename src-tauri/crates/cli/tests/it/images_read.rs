//! `file_read` of an image file (issue 36, part 1): the model that takes images is shown
//! the image with the call's result, in both wire formats; one that takes none gets the
//! text answer it always got.

use paddock_fake_model::{FakeServer, Reply};
use serde_json::{Value, json};

use crate::common::{Env, chat_bodies};

fn png(width: u32, height: u32) -> Vec<u8> {
    let mut out = std::io::Cursor::new(Vec::new());
    image::DynamicImage::new_rgb8(width, height)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

fn with_shot(env: &Env) {
    std::fs::create_dir_all(env.workspace()).unwrap();
    std::fs::write(env.workspace().join("shot.png"), png(40, 20)).unwrap();
}

fn replies() -> [Reply; 2] {
    [
        Reply::tool_call("file_read", json!({"path": "shot.png"})),
        Reply::text("A black rectangle."),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_image_goes_inside_the_tool_result_in_the_messages_api() {
    let server = FakeServer::start().await.unwrap();
    server.push_all(replies());
    let mut env = Env::new(
        &server,
        json!({"provider": "anthropic", "model": "claude-haiku-4-5", "preset": "readonly"}),
    );
    env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
    with_shot(&env);
    env.run(&["exec", "What is in shot.png?"])
        .await
        .expect_code(0);

    let second = server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("messages"))
        .nth(1)
        .unwrap()
        .body;
    let result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["content"].as_array().into_iter().flatten())
        .find(|b| b["type"] == "tool_result")
        .cloned()
        .unwrap();
    let parts: Vec<&Value> = result["content"].as_array().unwrap().iter().collect();
    assert!(
        parts
            .iter()
            .any(|p| p["type"] == "text" && p["text"].as_str().unwrap().contains("40x20")),
        "{result}"
    );
    let image = parts.iter().find(|p| p["type"] == "image").unwrap();
    assert_eq!(image["source"]["media_type"], json!("image/png"));
    assert!(image["source"]["data"].as_str().unwrap().len() > 20);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_completions_show_the_image_after_the_tool_message_and_text_models_get_text() {
    let server = FakeServer::start().await.unwrap();
    server.push_all(replies());
    let mut env = Env::new(
        &server,
        json!({"provider": "openai", "model": "gpt-4o-mini", "preset": "readonly"}),
    );
    env.set_env("OPENAI_API_KEY", "sk-test-key-1234567890");
    with_shot(&env);
    env.run(&["exec", "What is in shot.png?"])
        .await
        .expect_code(0);
    let body = chat_bodies(&server)[1].to_string();
    assert!(
        body.contains("data:image/png;base64,") && body.contains("\"role\":\"tool\""),
        "{body}"
    );

    // A model that takes no images: the answer it always got, and no image sent.
    let server = FakeServer::start().await.unwrap();
    server.push_all(replies());
    let mut env = Env::new(
        &server,
        json!({"provider": "openai", "model": "gpt-3.5-turbo", "preset": "readonly"}),
    );
    env.set_env("OPENAI_API_KEY", "sk-test-key-1234567890");
    with_shot(&env);
    env.run(&["exec", "What is in shot.png?"])
        .await
        .expect_code(0);
    let body = chat_bodies(&server)[1].to_string();
    assert!(body.contains("looks like a binary file"), "{body}");
    assert!(!body.contains("data:image"), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_model_its_server_calls_a_vision_model_is_shown_the_image() {
    for (vision, shown) in [(true, true), (false, false)] {
        let server = FakeServer::start().await.unwrap();
        server.set_probes(paddock_fake_model::Probes {
            llama_cpp_n_ctx: Some(32_768),
            llama_cpp_vision: vision,
            ..Default::default()
        });
        server.push_all(replies());
        let env = Env::new(&server, json!({"preset": "readonly"}));
        with_shot(&env);
        env.run(&["exec", "What is in shot.png?"])
            .await
            .expect_code(0);
        let body = chat_bodies(&server)[1].to_string();
        assert_eq!(body.contains("data:image/png;base64,"), shown, "{body}");
    }
}
