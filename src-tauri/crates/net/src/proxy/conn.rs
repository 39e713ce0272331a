//! One client connection, from its request head to its event: CONNECT tunnels, plain-HTTP
//! forwarding, and a 4xx for anything else. Every connection is its own task (the serve
//! helpers spawn it), so a slow or hostile client only ever holds itself up.

use std::sync::atomic::Ordering;
use std::time::Instant;

use tokio::io::{AsyncRead, AsyncWrite};

use crate::host::{parse_authority, parse_http_target};
use crate::proxy::Shared;
use crate::proxy::call::Call;
use crate::proxy::carry::{Counters, Until};
use crate::proxy::event::ConnectionEvent;
use crate::proxy::forward::origin_request;
use crate::proxy::head::read_head;
use crate::proxy::open::{Refusal, open};
use crate::proxy::pipe::{pipe, send_first};
use crate::proxy::reply::{ESTABLISHED, refusal, refuse_and_close, send};
use crate::proxy::stream::ProxyStream;

/// Serves one connection to its end (or the call's), then reports it.
pub(crate) async fn serve<S: ProxyStream>(shared: &Shared, mut client: S, call: &Call) {
    let started = Instant::now();
    let mut event = ConnectionEvent::new(call.id());
    let counters = Counters::default();
    let global = shared.permits.clone().try_acquire_owned().ok();
    let local = call.try_permit();
    if call.is_closed() {
        event.why = "the call has ended".into();
        event.error = Some(event.why.clone());
    } else if global.is_none() || local.is_none() {
        event.why = match global {
            None => "the proxy has too many open connections".into(),
            Some(_) => "this call has too many open connections".into(),
        };
        event.error = Some(event.why.clone());
        event.status = Some(503);
        let answer = refusal(503, &event.why);
        refuse_and_close(&mut client, &answer, shared.config.head_timeout).await;
    } else {
        let finished = {
            let handling = handle(shared, &mut client, call, &mut event, &counters);
            tokio::select! {
                () = handling => true,
                () = call.closed() => false,
            }
        };
        if !finished {
            event.error = Some("closed: the call ended".into());
        }
    }
    drop((global, local));
    event.bytes_up = counters.up.load(Ordering::Relaxed);
    event.bytes_down = counters.down.load(Ordering::Relaxed);
    event.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    tracing::debug!(
        call = %event.call,
        host = ?event.host,
        port = ?event.port,
        allowed = event.allowed,
        why = %event.why,
        error = ?event.error,
        "proxy connection"
    );
    shared.events.connection(event);
}

async fn handle<S: ProxyStream>(
    shared: &Shared,
    client: &mut S,
    call: &Call,
    event: &mut ConnectionEvent,
    counters: &Counters,
) {
    let config = &shared.config;
    let (head, early) = match read_head(client, config.max_head_bytes, config.head_timeout).await {
        Ok(read) => read,
        Err(e) => {
            let why = e.to_string();
            if let Some(status) = e.status() {
                refuse(
                    shared,
                    client,
                    event,
                    Refusal {
                        status,
                        why: why.clone(),
                    },
                )
                .await;
            } else {
                event.why = why.clone();
            }
            event.error = Some(why);
            return;
        }
    };
    event.method = Some(head.method.clone());
    let is_connect = head.method == "CONNECT";
    let parsed = match is_connect {
        true => parse_authority(&head.target).map(|(host, port)| (host, port, None)),
        false => parse_http_target(&head.target).map(|t| (t.host.clone(), t.port, Some(t))),
    };
    let (host, port, http) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => {
            let why = match head.target.starts_with('/') || head.target == "*" {
                true => format!(
                    "`{} {}` is not a proxy request: send an absolute http:// URL, or CONNECT host:port",
                    head.method, head.target
                ),
                false => e.to_string(),
            };
            bad_request(shared, client, event, why).await;
            return;
        }
    };
    event.host = Some(host.to_string());
    event.port = Some(port);
    // The forwarded head is built before any policy step: a bad request is refused without
    // asking anyone or resolving anything.
    let forwarded = match http.as_ref().map(|t| origin_request(&head, t)).transpose() {
        Ok(forwarded) => forwarded,
        Err(why) => {
            bad_request(shared, client, event, why).await;
            return;
        }
    };
    let mut upstream = match open(shared, call, &head.method, &host, port, event).await {
        Ok(upstream) => upstream,
        Err(refused) => {
            refuse(shared, client, event, refused).await;
            return;
        }
    };
    if is_connect {
        event.status = Some(200);
        send(client, ESTABLISHED, config.head_timeout).await;
    }
    let mut first = forwarded.unwrap_or_default();
    first.extend_from_slice(&early);
    let carried = match first.is_empty() {
        true => Ok(()),
        false => send_first(&mut upstream, &first, &counters.up, call).await,
    };
    let carried = match carried {
        Ok(()) => {
            let until = match is_connect {
                true => Until::BothEnd,
                false => Until::AnswerEnds,
            };
            pipe(client, upstream, counters, call, until).await
        }
        Err(e) => Err(e),
    };
    if let Err(e) = carried {
        event.error = Some(e.to_string());
    }
}

async fn bad_request<S>(shared: &Shared, client: &mut S, event: &mut ConnectionEvent, why: String)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    event.error = Some(why.clone());
    refuse(shared, client, event, Refusal { status: 400, why }).await;
}

async fn refuse<S>(shared: &Shared, client: &mut S, event: &mut ConnectionEvent, refused: Refusal)
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    event.status = Some(refused.status);
    if refused.status == 502 {
        event.error = Some(refused.why.clone());
    }
    let answer = refusal(refused.status, &refused.why);
    refuse_and_close(client, &answer, shared.config.head_timeout).await;
    event.why = refused.why;
}
