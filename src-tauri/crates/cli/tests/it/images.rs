//! `--image` (issue 36, part 1): an image arrives as an image block in both wire formats,
//! scaled to the vendor's limits, is kept with the session and sent again on resume; a
//! model that takes no images, a file that is no image and a huge file are refused before
//! any request.

use base64::Engine;
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

fn decoded(data: &str) -> image::DynamicImage {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    image::load_from_memory(&bytes).unwrap()
}

fn anthropic_env(server: &FakeServer) -> Env {
    let mut env = Env::new(
        server,
        json!({"provider": "anthropic", "model": "claude-haiku-4-5"}),
    );
    env.set_env("ANTHROPIC_API_KEY", "sk-ant-test-key-1234567890");
    env
}

fn messages_bodies(server: &FakeServer) -> Vec<Value> {
    server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("messages"))
        .map(|r| r.body)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_arrives_as_an_image_url_part_in_chat_completions() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("A black square."));
    let env = Env::new(&server, json!({}));
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png(40, 30)).unwrap();

    let run = env
        .run(&["exec", "--image", shot.to_str().unwrap(), "what is this"])
        .await;
    run.expect_code(0);
    let body = &chat_bodies(&server)[0];
    let user = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .rfind(|m| m["role"] == "user")
        .unwrap();
    let parts = user["content"].as_array().expect("content parts");
    assert_eq!(parts[0], json!({"type": "text", "text": "what is this"}));
    assert_eq!(parts[1]["type"], json!("image_url"));
    let url = parts[1]["image_url"]["url"].as_str().unwrap();
    let data = url.strip_prefix("data:image/png;base64,").expect(url);
    assert_eq!(decoded(data).width(), 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_image_arrives_scaled_as_an_image_block_kept_and_resent_on_resume() {
    let server = FakeServer::start().await.unwrap();
    server.push(Reply::text("Wide."));
    server.push(Reply::text("Still wide."));
    let env = anthropic_env(&server);
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png(3000, 2000)).unwrap();

    let run = env
        .run(&["exec", "--image", shot.to_str().unwrap(), "what is this"])
        .await;
    run.expect_code(0);
    let body = &messages_bodies(&server)[0];
    let blocks = body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(blocks[0]["text"], json!("what is this"));
    assert_eq!(blocks[1]["type"], json!("image"));
    assert_eq!(blocks[1]["source"]["type"], json!("base64"));
    assert_eq!(blocks[1]["source"]["media_type"], json!("image/png"));
    let sent = blocks[1]["source"]["data"].as_str().unwrap().to_owned();
    let image = decoded(&sent);
    assert_eq!((image.width(), image.height()), (1568, 1045));

    // Kept beside the session, private, referenced by digest (not bytes) in its file.
    let id = run.session_id();
    let session = env.store().root().join(
        std::fs::read_dir(env.store().root())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name(),
    );
    let lines = std::fs::read_to_string(session.join(format!("{id}.jsonl"))).unwrap();
    assert!(lines.contains("\"sha256\"") && !lines.contains(&sent[..64]));
    let images = session.join(format!("{id}.images"));
    let files: Vec<_> = std::fs::read_dir(&images).unwrap().flatten().collect();
    assert_eq!(files.len(), 1);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        files[0].metadata().unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert_eq!(
        std::fs::metadata(&images).unwrap().permissions().mode() & 0o777,
        0o700
    );

    let run = env.run(&["resume", &id, "and now?"]).await;
    run.expect_code(0);
    let body = &messages_bodies(&server)[1];
    assert_eq!(
        body["messages"][0]["content"][1]["source"]["data"],
        json!(sent)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_model_a_foreign_file_and_a_huge_file_are_refused_before_any_request() {
    let server = FakeServer::start().await.unwrap();
    let env = Env::new(&server, json!({"images": false}));
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png(10, 10)).unwrap();
    let run = env
        .run(&["exec", "--image", shot.to_str().unwrap(), "what is this"])
        .await;
    run.expect_code(2);
    assert!(
        run.stderr.contains("fake-model takes no images") && run.stderr.contains("\"images\""),
        "{}",
        run.stderr
    );

    let env = Env::new(&server, json!({}));
    let key = env.home().join("id_rsa");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY-----\nKEY-SECRET\n").unwrap();
    let link = env.home().join("shot.png");
    std::os::unix::fs::symlink(&key, &link).unwrap();
    let huge = env.home().join("huge.png");
    let f = std::fs::File::create(&huge).unwrap();
    f.set_len(64 * 1024 * 1024).unwrap();
    for (path, says) in [(&link, "not a PNG"), (&huge, "at most 20 MB")] {
        let run = env
            .run(&["exec", "--image", path.to_str().unwrap(), "what is this"])
            .await;
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(says), "{}", run.stderr);
        assert!(!run.stderr.contains("KEY-SECRET") && !run.stdout.contains("KEY-SECRET"));
    }
    assert!(chat_bodies(&server).is_empty(), "a prompt went out");
    assert!(env.store().list(&env.project()).unwrap().is_empty());
}

fn ollama_says(vision: bool) -> paddock_fake_model::Probes {
    paddock_fake_model::Probes {
        ollama: [(
            "fake-model".to_owned(),
            paddock_fake_model::OllamaModel {
                architecture: "gemma3".into(),
                context_length: 131_072,
                num_ctx: Some(32_768),
                remote_host: None,
                vision,
            },
        )]
        .into(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_server_that_says_its_model_reads_text_only_gets_no_image() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(ollama_says(false));
    let env = Env::new(&server, json!({}));
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png(10, 10)).unwrap();
    let run = env
        .run(&["exec", "--image", shot.to_str().unwrap(), "what is this"])
        .await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("fake-model takes no images"),
        "{}",
        run.stderr
    );
    assert!(chat_bodies(&server).is_empty(), "a prompt went out");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_resumed_on_a_text_only_model_names_its_images_instead_of_sending_them() {
    let server = FakeServer::start().await.unwrap();
    server.set_probes(ollama_says(true));
    server.push(Reply::text("A black square."));
    server.push(Reply::text("Going on."));
    let env = Env::new(&server, json!({}));
    let shot = env.home().join("shot.png");
    std::fs::write(&shot, png(10, 10)).unwrap();
    let run = env
        .run(&["exec", "--image", shot.to_str().unwrap(), "what is this"])
        .await;
    run.expect_code(0);
    let id = run.session_id();
    let first = &chat_bodies(&server)[0];
    assert!(first.to_string().contains("image_url"));

    // The same model, now served without its projector.
    server.set_probes(ollama_says(false));
    let run = env.run(&["resume", &id, "and now?"]).await;
    run.expect_code(0);
    let body = &chat_bodies(&server)[1];
    assert!(!body.to_string().contains("image_url"), "{body}");
    assert!(
        body.to_string()
            .contains("[image: shot.png] (not sent: this model reads text only)"),
        "{body}"
    );
    assert!(run.stderr.contains("reads text only"), "{}", run.stderr);
    // The stored session keeps the image.
    let stored = env.load(&id);
    assert!(format!("{:?}", stored.history).contains("Image("));
}
