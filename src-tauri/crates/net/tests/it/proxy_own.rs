//! The proxy against addresses judged by what they are: this machine's own addresses (a
//! service listening on all interfaces answers on each of them) and IPv6 forms carrying a
//! loopback or private IPv4 address. Names are resolved by the tests' own table; the only
//! listeners are the tests' own, on this machine.

use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use paddock_net::{OwnAddressCache, OwnAddresses, StaticResolver, judge};

use crate::support::{Harness, echo_server, ip, policy, round_trip, settle, status};

/// A list that is never re-read by age in a test's time.
const NEVER_STALE: Duration = Duration::from_secs(3600);

/// One of this machine's IPv4 addresses other than loopback, preferring one the kind rules
/// call public (as a cloud VM's or this dev container's 192.0.2.2): through that one, main
/// reached the machine's listeners. `None` on a machine with loopback only.
fn machines_address() -> Option<IpAddr> {
    let listed = OwnAddresses::read();
    let candidates: Vec<IpAddr> = listed
        .addresses()
        .filter(|a| a.is_ipv4() && !a.is_loopback())
        .collect();
    let public = |a: &&IpAddr| !judge(**a, &OwnAddresses::none()).is_forbidden();
    candidates
        .iter()
        .find(public)
        .or(candidates.first())
        .copied()
}

type List = Arc<Mutex<Vec<(IpAddr, String)>>>;

/// A cache over a list the test changes, the list, and the flag that says it changed.
fn controlled(list: Vec<(IpAddr, String)>) -> (Arc<OwnAddressCache>, List, Arc<AtomicBool>) {
    let list = Arc::new(Mutex::new(list));
    let changed = Arc::new(AtomicBool::new(false));
    let (read, signal) = (list.clone(), changed.clone());
    let cache = OwnAddressCache::with(
        move || Ok(read.lock().unwrap().clone()),
        Some(Box::new(move || signal.swap(false, Ordering::SeqCst))),
        NEVER_STALE,
    );
    (Arc::new(cache), list, changed)
}

fn loopback_only() -> Vec<(IpAddr, String)> {
    vec![
        (ip("127.0.0.1"), "lo".to_owned()),
        (ip("::1"), "lo".to_owned()),
    ]
}

/// Guards: an allowed name whose DNS answer is this machine's own non-loopback address,
/// which reaches every service listening on all interfaces (here an echo server on
/// 0.0.0.0). Fails on main: there the proxy knew only loopback as "this machine", so the
/// tunnel to 192.0.2.2 (this dev container's eth0) was opened and echoed; the first half
/// below shows that reach with a proxy told the machine has loopback only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_resolving_to_this_machines_own_address_is_refused() {
    let Some(own) = machines_address() else {
        eprintln!("this machine has no address but loopback: nothing to show here");
        return;
    };
    let echo = echo_server("0.0.0.0:0").await;
    let target = format!("allowed.test:{}", echo.port());
    let resolver = || StaticResolver::new().with("allowed.test", [own]);
    let rules = policy(&["allowed.test"], &[], &[]);
    if !judge(own, &OwnAddresses::none()).is_forbidden() {
        let (cache, _, _) = controlled(loopback_only());
        let blind = Harness::start_own(rules.clone(), resolver(), cache).await;
        let (mut tunnel, head) = blind.connect(&target).await;
        assert_eq!(status(&head), 200, "{own}: {head}");
        assert_eq!(round_trip(&mut tunnel, b"reached").await, b"reached");
        assert_eq!(echo.accepted(), 1);
    }
    let before = echo.accepted();
    let mut h = Harness::start(rules, resolver()).await;
    let (code, body) = h
        .refused(format!("CONNECT {target} HTTP/1.1\r\n\r\n").as_bytes())
        .await;
    assert_eq!(code, 403, "{own}: {body}");
    assert!(body.contains("this machine's own address (on "), "{body}");
    let e = h.event().await;
    assert!(!e.allowed, "{e:?}");
    assert_eq!(e.refused_addresses.len(), 1, "{e:?}");
    assert_eq!(e.refused_addresses[0].address, own);
    assert_eq!(e.address, None);
    settle().await;
    assert_eq!(
        echo.accepted(),
        before,
        "the machine's listener was reached"
    );
}

/// Guards: a name resolving to an IPv6 form that carries 127.0.0.1 or a private address
/// passing as a public IPv6 host. Fails on main (run there): every form here but 6to4 was
/// judged public, so the event was `allowed` and the proxy connected (a 502 "No route to
/// host" from the connect, not a 403 from the fence).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_resolving_to_an_embedded_loopback_or_private_address_is_refused() {
    let echo = echo_server("127.0.0.1:0").await;
    for (addr, inner, kind) in [
        ("::ffff:0:127.0.0.1", "127.0.0.1", "loopback"),
        ("64:ff9b:1::7f00:1", "127.0.0.1", "loopback"),
        ("64:ff9b:1:abcd:7f:0:100::", "127.0.0.1", "loopback"),
        (
            "2001:0:4136:e378:8000:63bf:80ff:fffe",
            "127.0.0.1",
            "loopback",
        ),
        ("2001:db8::5efe:7f00:1", "127.0.0.1", "loopback"),
        ("2002:c0a8:101::1", "192.168.1.1", "private"),
        ("64:ff9b:1::a9fe:a9fe", "169.254.169.254", "metadata"),
    ] {
        let resolver = StaticResolver::new().with("allowed.test", [ip(addr)]);
        let mut h = Harness::start(policy(&["allowed.test"], &[], &[]), resolver).await;
        let (code, body) = h
            .refused(format!("CONNECT allowed.test:{} HTTP/1.1\r\n\r\n", echo.port()).as_bytes())
            .await;
        assert_eq!(code, 403, "{addr}: {body}");
        let e = h.event().await;
        assert!(!e.allowed, "{addr}: {e:?}");
        assert_eq!(e.address, None, "{addr}: connected");
        let why = &e.refused_addresses[0].why;
        let spelt = ip(addr).to_string();
        assert!(
            why.starts_with(&format!("{inner} is"))
                && why.contains(kind)
                && why.contains(&format!("reached through {spelt}")),
            "{addr}: {why}"
        );
    }
    settle().await;
    assert_eq!(echo.accepted(), 0);
}

/// Guards: an address added to an interface while the proxy runs being missed until
/// Paddock restarts. The same name and listener: reached while the address is not the
/// machine's, refused once the (test's) list says it is and signals the change.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_the_machine_gains_is_refused_from_then_on() {
    let Some(own) = machines_address() else {
        eprintln!("this machine has no address but loopback: nothing to show here");
        return;
    };
    if judge(own, &OwnAddresses::none()).is_forbidden() {
        eprintln!("{own} is refused by its kind already: nothing to show here");
        return;
    }
    let echo = echo_server("0.0.0.0:0").await;
    let target = format!("allowed.test:{}", echo.port());
    let resolver = StaticResolver::new().with("allowed.test", [own]);
    let (cache, list, changed) = controlled(loopback_only());
    let h = Harness::start_own(policy(&["allowed.test"], &[], &[]), resolver, cache).await;
    let (mut tunnel, head) = h.connect(&target).await;
    assert_eq!(status(&head), 200, "{head}");
    assert_eq!(round_trip(&mut tunnel, b"before").await, b"before");
    list.lock().unwrap().push((own, "eth9".to_owned()));
    changed.store(true, Ordering::SeqCst);
    let (code, body) = h
        .refused(format!("CONNECT {target} HTTP/1.1\r\n\r\n").as_bytes())
        .await;
    assert_eq!(code, 403, "{body}");
    assert!(
        body.contains("this machine's own address (on eth9)"),
        "{body}"
    );
    settle().await;
    assert_eq!(echo.accepted(), 1, "only the connection before the change");
}
