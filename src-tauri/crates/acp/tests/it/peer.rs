use std::time::Duration;

use paddock_acp::peer::{Incoming, MAX_LINE_BYTES, connect};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, duplex};

/// A peer on one end of an in-memory pipe; the test plays the other side by lines.
async fn pair() -> (
    std::sync::Arc<paddock_acp::peer::Peer>,
    tokio::sync::mpsc::UnboundedReceiver<Incoming>,
    tokio::io::WriteHalf<tokio::io::DuplexStream>,
    tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
) {
    let (ours, theirs) = duplex(1 << 20);
    let (r, w) = tokio::io::split(ours);
    let (peer, incoming) = connect(r, w);
    let (tr, tw) = tokio::io::split(theirs);
    (peer, incoming, tw, BufReader::new(tr).lines())
}

async fn next_line(
    lines: &mut tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
) -> Value {
    let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    serde_json::from_str(&line).unwrap()
}

#[tokio::test]
async fn a_request_gets_its_answer_while_the_other_side_asks_too() {
    let (peer, mut incoming, mut tw, mut lines) = pair().await;
    let asking = tokio::spawn({
        let peer = peer.clone();
        async move {
            peer.request("session/request_permission", json!({"x": 1}))
                .await
        }
    });
    let sent = next_line(&mut lines).await;
    assert_eq!(sent["jsonrpc"], "2.0");
    assert_eq!(sent["method"], "session/request_permission");
    // The other side sends a request of its own before answering: both get through.
    tw.write_all(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"session/prompt\",\"params\":{}}\n",
    )
    .await
    .unwrap();
    let answer = json!({"jsonrpc": "2.0", "id": sent["id"], "result": {"outcome": "ok"}});
    tw.write_all(format!("{answer}\n").as_bytes())
        .await
        .unwrap();
    assert_eq!(asking.await.unwrap().unwrap(), json!({"outcome": "ok"}));
    let Some(Incoming::Request { id, method, .. }) = incoming.recv().await else {
        panic!("no request")
    };
    assert_eq!((id, method.as_str()), (json!("a"), "session/prompt"));
    peer.respond(json!("a"), Ok(json!({"stopReason": "end_turn"})));
    let reply = next_line(&mut lines).await;
    assert_eq!(reply["id"], "a");
    assert_eq!(reply["result"]["stopReason"], "end_turn");
}

#[tokio::test]
async fn garbage_gets_a_parse_error_and_the_next_message_still_arrives() {
    let (_peer, mut incoming, mut tw, mut lines) = pair().await;
    tw.write_all(b"not json at all\n[1,2]\n{\"jsonrpc\":\"2.0\",\"method\":\"session/cancel\",\"params\":{\"sessionId\":\"s\"}}\n")
        .await
        .unwrap();
    assert_eq!(next_line(&mut lines).await["error"]["code"], -32700);
    assert_eq!(next_line(&mut lines).await["error"]["code"], -32600);
    let Some(Incoming::Notification { method, params }) = incoming.recv().await else {
        panic!("no notification")
    };
    assert_eq!(method, "session/cancel");
    assert_eq!(params["sessionId"], "s");
}

#[tokio::test]
async fn an_endless_line_is_refused_without_being_kept() {
    let (_peer, mut incoming, mut tw, mut lines) = pair().await;
    let writer = tokio::spawn(async move {
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..=(MAX_LINE_BYTES >> 20) {
            tw.write_all(&chunk).await.unwrap();
        }
        tw.write_all(b"\n{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}\n")
            .await
            .unwrap();
        tw
    });
    assert_eq!(next_line(&mut lines).await["error"]["code"], -32600);
    let Some(Incoming::Notification { method, .. }) = incoming.recv().await else {
        panic!("no notification after the long line")
    };
    assert_eq!(method, "ping");
    drop(writer.await.unwrap());
}

#[tokio::test]
async fn a_request_pending_when_the_other_side_goes_away_fails_instead_of_hanging() {
    let (peer, mut incoming, tw, lines) = pair().await;
    let asking = tokio::spawn({
        let peer = peer.clone();
        async move { peer.request("session/request_permission", json!({})).await }
    });
    tokio::time::sleep(Duration::from_millis(50)).await;
    drop(tw);
    drop(lines);
    let failed = tokio::time::timeout(Duration::from_secs(5), asking)
        .await
        .unwrap()
        .unwrap();
    assert!(failed.unwrap_err().message.contains("closed"));
    assert!(
        incoming.recv().await.is_none(),
        "the incoming side ends too"
    );
}
