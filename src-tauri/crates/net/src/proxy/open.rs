//! From a host and port to an open upstream connection, or a refusal: the policy first (a
//! denied name is never even resolved, so DNS cannot carry it out), then the question if
//! one is due, then resolution by the proxy, then every address checked (a name rule never
//! grants loopback, private or metadata addresses, nor this machine's own: `addr::judge`,
//! against the machine's addresses as they are after resolution), then the connection to
//! the first address left. The address checked is the address connected to: no second
//! lookup.

use std::net::{IpAddr, SocketAddr};

use tokio::net::TcpStream;

use crate::host::Host;
use crate::policy::{AddressCheck, Decision, Verdict};
use crate::proxy::Shared;
use crate::proxy::ask::AskRequest;
use crate::proxy::call::{Call, Direction};
use crate::proxy::event::{AskAnswer, ConnectionEvent, RefusedAddress};

/// Addresses of one name considered at most (a DNS answer is the attacker's).
pub const MAX_ADDRESSES: usize = 16;
/// Addresses tried at most before the connection is given up.
pub const MAX_CONNECT_ATTEMPTS: usize = 4;

/// Why no connection was opened: the status to answer with and one line for the client.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub status: u16,
    pub why: String,
}

fn forbidden(why: String) -> Refusal {
    Refusal { status: 403, why }
}

fn unreachable(why: String) -> Refusal {
    Refusal { status: 502, why }
}

/// Decides, asks, resolves, checks and connects; fills in the event as it goes.
pub(crate) async fn open(
    shared: &Shared,
    call: &Call,
    method: &str,
    host: &Host,
    port: u16,
    event: &mut ConnectionEvent,
) -> Result<TcpStream, Refusal> {
    let target = host.authority(port);
    // A connection that could send or receive nothing more is refused before it opens.
    if let Some(way) = [Direction::Up, Direction::Down]
        .into_iter()
        .find(|way| call.remaining(*way) == 0)
    {
        let why = call.cap_text(way).replace("was reached", "is used up");
        return Err(forbidden(format!("{target}: {why}")));
    }
    let policy = shared.policy();
    let decision = policy.decide_with(host, port, &shared.own.current());
    event.rule = decision.rule.clone();
    event.why = decision.why.clone();
    match decision.verdict {
        Verdict::Allow => {}
        Verdict::Deny => return Err(forbidden(decision.why)),
        Verdict::Ask => {
            let answer = ask(shared, call, method, host, port, decision).await;
            event.asked = Some(answer);
            event.why = match answer {
                AskAnswer::Yes => format!("{target}: asked, and allowed"),
                AskAnswer::No => format!("{target}: asked, and refused"),
                AskAnswer::TimedOut => format!(
                    "{target}: asked, and no answer came within {} s",
                    shared.config.ask_timeout.as_secs_f32()
                ),
            };
            if answer != AskAnswer::Yes {
                return Err(forbidden(event.why.clone()));
            }
        }
    }
    let addrs = match host {
        Host::Ip(ip) => vec![*ip],
        Host::Name(name) => resolve(shared, name).await?,
    };
    let own = shared.own.current();
    let mut permitted = Vec::new();
    for ip in addrs {
        match policy.check_address_with(ip, port, &own) {
            AddressCheck::Permitted { rule } => permitted.push((ip, rule)),
            AddressCheck::Refused { why, .. } => {
                event
                    .refused_addresses
                    .push(RefusedAddress { address: ip, why });
            }
        }
    }
    if permitted.is_empty() {
        let refused: Vec<&str> = event
            .refused_addresses
            .iter()
            .map(|r| r.why.as_str())
            .collect();
        let why = format!(
            "{target} leads only to refused addresses: {}",
            refused.join("; ")
        );
        // The event says why it was refused, not the rule that let the name through.
        event.why = format!("{}, but {why}", event.why);
        return Err(forbidden(why));
    }
    event.allowed = true;
    let addrs: Vec<IpAddr> = permitted.iter().map(|(ip, _)| *ip).collect();
    let stream = connect(shared, &target, &addrs, port, event).await?;
    // Say so when the address needed a rule of its own (a private address named by one).
    let connected = event.address.map(|a| a.ip());
    if let Some((ip, Some(rule))) = permitted.iter().find(|(ip, _)| Some(*ip) == connected) {
        event.why = format!(
            "{}; {ip} is allowed by {rule} (`{}`)",
            event.why, rule.pattern
        );
    }
    Ok(stream)
}

async fn ask(
    shared: &Shared,
    call: &Call,
    method: &str,
    host: &Host,
    port: u16,
    decision: Decision,
) -> AskAnswer {
    let cell = call.ask_cell(host, port);
    let request = AskRequest {
        call: call.id().to_owned(),
        method: method.to_owned(),
        host: host.to_string(),
        port,
        decision,
    };
    let answer = cell
        .get_or_init(|| async {
            let question = shared.decider.decide(request);
            match tokio::time::timeout(shared.config.ask_timeout, question).await {
                Ok(true) => AskAnswer::Yes,
                Ok(false) => AskAnswer::No,
                Err(_) => AskAnswer::TimedOut,
            }
        })
        .await;
    *answer
}

async fn resolve(shared: &Shared, name: &str) -> Result<Vec<IpAddr>, Refusal> {
    let timeout = shared.config.resolve_timeout;
    let mut addrs = match tokio::time::timeout(timeout, shared.resolver.resolve(name)).await {
        Err(_) => {
            return Err(unreachable(format!(
                "resolving {name} took longer than {} s",
                timeout.as_secs_f32()
            )));
        }
        Ok(Err(e)) => return Err(unreachable(format!("cannot resolve {name}: {e}"))),
        Ok(Ok(addrs)) => addrs,
    };
    addrs.truncate(MAX_ADDRESSES * 4);
    let mut seen = Vec::new();
    addrs.retain(|ip| {
        let new = !seen.contains(ip);
        seen.push(*ip);
        new
    });
    addrs.truncate(MAX_ADDRESSES);
    if addrs.is_empty() {
        return Err(unreachable(format!("{name} has no address")));
    }
    Ok(addrs)
}

async fn connect(
    shared: &Shared,
    target: &str,
    addrs: &[IpAddr],
    port: u16,
    event: &mut ConnectionEvent,
) -> Result<TcpStream, Refusal> {
    let timeout = shared.config.connect_timeout;
    let mut failures = Vec::new();
    for ip in addrs.iter().take(MAX_CONNECT_ATTEMPTS) {
        let addr = SocketAddr::new(*ip, port);
        match tokio::time::timeout(timeout, TcpStream::connect(addr)).await {
            Ok(Ok(stream)) => {
                // Small requests and answers go out at once, not after Nagle's delay.
                let _ = stream.set_nodelay(true);
                event.address = Some(addr);
                return Ok(stream);
            }
            Ok(Err(e)) => failures.push(format!("{addr}: {e}")),
            Err(_) => failures.push(format!(
                "{addr}: no answer within {} s",
                timeout.as_secs_f32()
            )),
        }
    }
    Err(unreachable(format!(
        "cannot connect to {target} ({})",
        failures.join("; ")
    )))
}
