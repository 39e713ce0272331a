//! Asking about a host no rule settles: yes, no, no answer in time, and one question per
//! host for all of a call's connections.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use paddock_net::{AskAnswer, AskRequest, CallLimits, Decider, ProxyConfig, StaticResolver};

use crate::support::{Harness, echo_server, ip, policy, round_trip, settle, status};

fn resolver() -> StaticResolver {
    StaticResolver::new().with("new.test", [ip("127.0.0.1")])
}

async fn start(decider: Arc<dyn Decider>, ask_timeout: Duration) -> Harness {
    let config = ProxyConfig {
        ask_timeout,
        ..ProxyConfig::default()
    };
    Harness::start_with(
        policy(&["127.0.0.1"], &[], &[]),
        resolver(),
        decider,
        config,
        CallLimits::default(),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_yes_lets_the_connection_through() {
    let echo = echo_server("127.0.0.1:0").await;
    let asked = Arc::new(Mutex::new(Vec::<AskRequest>::new()));
    let log = asked.clone();
    let decider = Arc::new(move |req: AskRequest| {
        log.lock().unwrap().push(req);
        async { true }
    });
    let mut h = start(decider, Duration::from_secs(5)).await;
    let (mut tunnel, head) = h.connect(&format!("new.test:{}", echo.port())).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(round_trip(&mut tunnel, b"ok").await, b"ok");
    drop(tunnel);
    let e = h.event().await;
    assert_eq!((e.allowed, e.asked), (true, Some(AskAnswer::Yes)));
    let asked = asked.lock().unwrap();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        (asked[0].host.as_str(), asked[0].port),
        ("new.test", echo.port())
    );
    assert_eq!(
        (asked[0].call.as_str(), asked[0].method.as_str()),
        ("call-1", "CONNECT")
    );
    assert!(
        asked[0].decision.why.contains("no rule"),
        "{:?}",
        asked[0].decision
    );
}

/// Guards: a refused question still connecting. The name is not even resolved.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_no_is_403_and_nothing_is_contacted() {
    let echo = echo_server("127.0.0.1:0").await;
    let decider = Arc::new(|_req: AskRequest| async { false });
    let mut h = start(decider, Duration::from_secs(5)).await;
    let (code, body) = h
        .refused(format!("CONNECT new.test:{} HTTP/1.1\r\n\r\n", echo.port()).as_bytes())
        .await;
    assert_eq!(code, 403);
    assert!(body.contains("asked, and refused"), "{body}");
    assert_eq!(h.event().await.asked, Some(AskAnswer::No));
    settle().await;
    assert_eq!(echo.accepted(), 0);
    assert!(h.resolver.lookups().is_empty());
}

/// Guards: a question nobody answers holding the call forever; it is a refusal after the
/// bounded wait.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_answer_in_time_is_a_refusal() {
    let echo = echo_server("127.0.0.1:0").await;
    let decider = Arc::new(|_req: AskRequest| std::future::pending::<bool>());
    let mut h = start(decider, Duration::from_millis(300)).await;
    let started = Instant::now();
    let (code, body) = h
        .refused(format!("CONNECT new.test:{} HTTP/1.1\r\n\r\n", echo.port()).as_bytes())
        .await;
    assert_eq!(code, 403);
    assert!(body.contains("no answer"), "{body}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    assert_eq!(h.event().await.asked, Some(AskAnswer::TimedOut));
    assert_eq!(echo.accepted(), 0);
}

/// `npm install` opens many connections to one host at once: the user is asked once, and
/// the answer holds for every connection of the call.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_question_per_host_per_call() {
    let echo = echo_server("127.0.0.1:0").await;
    let count = Arc::new(AtomicUsize::new(0));
    let counter = count.clone();
    let decider = Arc::new(move |_req: AskRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            true
        }
    });
    let h = Arc::new(start(decider, Duration::from_secs(5)).await);
    let target = format!("new.test:{}", echo.port());
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (h, target) = (h.clone(), target.clone());
            tokio::spawn(async move { status(&h.connect(&target).await.1) })
        })
        .collect();
    for c in clients {
        assert_eq!(c.await.unwrap(), 200);
    }
    assert_eq!(status(&h.connect(&target).await.1), 200);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

/// An ask rule asks even when an allow rule matches too (ask beats allow), and a deny rule
/// is never asked about.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_rules_ask_and_deny_rules_do_not() {
    let echo = echo_server("127.0.0.1:0").await;
    let count = Arc::new(AtomicUsize::new(0));
    let counter = count.clone();
    let decider = Arc::new(move |_req: AskRequest| {
        counter.fetch_add(1, Ordering::SeqCst);
        async { true }
    });
    let resolver = StaticResolver::new()
        .with("a.test", [ip("127.0.0.1")])
        .with("b.test", [ip("127.0.0.1")]);
    let h = Harness::start_with(
        policy(&["*.test", "127.0.0.1"], &["a.test"], &["b.test"]),
        resolver,
        decider,
        ProxyConfig::default(),
        CallLimits::default(),
    )
    .await;
    let port = echo.port();
    assert_eq!(status(&h.connect(&format!("a.test:{port}")).await.1), 200);
    assert_eq!(status(&h.connect(&format!("b.test:{port}")).await.1), 403);
    assert_eq!(count.load(Ordering::SeqCst), 1);
}
