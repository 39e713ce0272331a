//! The server: accepts connections on 127.0.0.1, answers model endpoints from the script,
//! records requests, and exposes a small control API under `/_fake/` for other processes.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use crate::body::{self, Body};
use crate::probe::{self, Endpoint, Probes};
use crate::record::{Outcome, RecordedRequest};
use crate::script::{Fault, Reply, Script, StreamRefusal, ToolRefusal};
use crate::{anthropic, chat, context, openai};

#[derive(Default)]
struct Inner {
    replies: VecDeque<Reply>,
    models: Vec<String>,
    api_key: Option<String>,
    context_window: Option<u32>,
    probes: Probes,
    refuse_streaming_tools: Option<StreamRefusal>,
    refuse_tools: Option<ToolRefusal>,
    side_reply: Option<Reply>,
    requests: Vec<RecordedRequest>,
}

impl Inner {
    /// Replaces everything a script sets; recorded requests stay.
    fn load(&mut self, script: Script) {
        self.replies = script.replies.into();
        self.models = script.models;
        self.api_key = script.api_key;
        self.context_window = script.context_window;
        self.probes = script.probes;
        self.refuse_streaming_tools = script.refuse_streaming_tools;
        self.refuse_tools = script.refuse_tools;
        self.side_reply = script.side_reply;
    }
}

pub(crate) struct State {
    inner: Mutex<Inner>,
    changed: Notify,
    started: Instant,
}

impl State {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn set_outcome(&self, index: usize, outcome: Outcome) {
        if let Some(r) = self.lock().requests.get_mut(index) {
            r.outcome = outcome;
        }
        self.changed.notify_waiters();
    }
}

/// A running fake model server. Stops accepting connections when dropped.
pub struct FakeServer {
    addr: SocketAddr,
    state: Arc<State>,
    task: JoinHandle<()>,
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FakeServer {
    /// Starts on 127.0.0.1 with a free port and an empty script.
    pub async fn start() -> std::io::Result<Self> {
        Self::start_with(SocketAddr::from(([127, 0, 0, 1], 0)), Script::default()).await
    }

    pub async fn start_with(addr: SocketAddr, script: Script) -> std::io::Result<Self> {
        let listener = TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let state = Arc::new(State {
            inner: Mutex::new(Inner::default()),
            changed: Notify::new(),
            started: Instant::now(),
        });
        let server = Self {
            addr,
            state: state.clone(),
            task: tokio::spawn(accept_loop(listener, state)),
        };
        server.load(script);
        Ok(server)
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`, the base URL to give a provider.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn push(&self, reply: Reply) {
        self.state.lock().replies.push_back(reply);
    }

    pub fn push_all(&self, replies: impl IntoIterator<Item = Reply>) {
        self.state.lock().replies.extend(replies);
    }

    /// Replaces the queued replies, the model list, the key, the context window mode and
    /// the side endpoints' answers.
    pub fn load(&self, script: Script) {
        self.state.lock().load(script);
    }

    /// The context window mode: every chat request estimated above `tokens`
    /// ([`crate::estimate_tokens`]) is refused with the vendor's context-overflow error
    /// (OpenAI: 400 `context_length_exceeded`; Anthropic: 400 `invalid_request_error`
    /// "prompt is too long: X tokens > N maximum") and consumes no reply. `None` ends it.
    /// Each chat request's estimate is recorded either way.
    pub fn set_context_window(&self, tokens: Option<u32>) {
        self.state.lock().context_window = tokens;
    }

    /// What the side endpoints (`/props`, `/api/show`, `/api/v0/models`, extra fields of
    /// `/v1/models`) say from now on.
    pub fn set_probes(&self, probes: Probes) {
        self.state.lock().probes = probes;
    }

    /// The streaming refusal mode: from now on, Chat Completions requests with
    /// `"stream": true` and tools are refused with `refusal` (llama-cpp-python's 500
    /// "Automatic streaming tool choice is not supported" by default) and consume no
    /// reply; the same request unstreamed is answered. `None` ends it.
    pub fn set_refuse_streaming_tools(&self, refusal: Option<StreamRefusal>) {
        self.state.lock().refuse_streaming_tools = refusal;
    }

    /// The tools refusal mode: from now on, Chat Completions requests offering tools are
    /// refused with `refusal` and consume no reply; requests without tools are answered.
    /// `None` ends it.
    pub fn set_refuse_tools(&self, refusal: Option<ToolRefusal>) {
        self.state.lock().refuse_tools = refusal;
    }

    /// The side reply: from now on, requests offering no tools get `reply` and take
    /// nothing from the queue. `None` ends it.
    pub fn set_side_reply(&self, reply: Option<Reply>) {
        self.state.lock().side_reply = reply;
    }

    /// Replies not yet played.
    pub fn pending(&self) -> usize {
        self.state.lock().replies.len()
    }

    /// Every model request so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state.lock().requests.clone()
    }

    /// Only the model calls (Chat Completions or Messages), without listings and the
    /// context-window probes a client makes around them.
    pub fn model_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| {
                // Without the query (Claude Code sends `/v1/messages?beta=true`).
                let path = r.path.split('?').next().unwrap_or_default();
                path.ends_with("/chat/completions") || path.ends_with("/messages")
            })
            .collect()
    }

    /// Waits until request `index` exists and its stream has ended; `None` on timeout.
    pub async fn wait_until_closed(&self, index: usize, timeout: Duration) -> Option<Outcome> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let notified = self.state.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if let Some(r) = self.state.lock().requests.get(index)
                && r.outcome != Outcome::Open
            {
                return Some(r.outcome);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return None;
            }
        }
    }
}

async fn accept_loop(listener: TcpListener, state: Arc<State>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| handle(state.clone(), req));
            // Errors here are clients hanging up or faults we injected: nothing to do.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

pub(crate) fn json_response(status: u16, value: &Value) -> Response<Body> {
    let mut resp = Response::new(body::full(value.to_string()));
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    resp.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    resp
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    Anthropic,
    OpenAi,
}

/// A request as the server read it.
struct Seen {
    method: Method,
    /// With its query.
    path: String,
    /// Without a trailing `/`.
    route: String,
    headers: BTreeMap<String, String>,
    bytes: hyper::body::Bytes,
    body: Value,
}

/// Reads the request whole; a body that cannot be read is answered 400.
async fn read_request(req: Request<Incoming>) -> Result<Seen, Response<Body>> {
    let method = req.method().clone();
    let path = req
        .uri()
        .path_and_query()
        .map_or_else(|| req.uri().path().to_owned(), |p| p.as_str().to_owned());
    let route = req.uri().path().trim_end_matches('/').to_owned();
    let headers: BTreeMap<String, String> = req
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let bytes = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(e) => {
            return Err(json_response(
                400,
                &json!({"error": format!("fake-model: could not read the body: {e}")}),
            ));
        }
    };
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Ok(Seen {
        method,
        path,
        route,
        headers,
        bytes,
        body,
    })
}

/// Records the request's end: its status, completed (bodies played out over time set it
/// themselves when they end).
fn record_end(state: &State, index: usize, response: &Response<Body>) {
    if response.extensions().get::<body::Played>().is_none() {
        let mut inner = state.lock();
        if let Some(r) = inner.requests.get_mut(index) {
            r.status = response.status().as_u16();
            r.outcome = Outcome::Completed;
        }
    }
    state.changed.notify_waiters();
}

/// What `take_turn` needs of a request.
struct Asked<'a> {
    method: &'a Method,
    path: String,
    headers: BTreeMap<String, String>,
    body: &'a Value,
    format: Format,
    is_chat: bool,
    estimated: Option<u32>,
    streams: bool,
    offers_tools: bool,
}

/// What the script says of one request, taken under the lock.
struct Turn {
    index: usize,
    reply: Option<Reply>,
    models: Vec<String>,
    authorized: bool,
    probes: Probes,
    window: Option<u32>,
    refusal: Option<(u16, Value)>,
}

/// Records the request and takes its turn of the script: is it authorized, refused, too
/// long, and which reply it gets.
fn take_turn(state: &State, asked: Asked<'_>) -> Turn {
    let Asked {
        method,
        path,
        headers,
        body,
        format,
        is_chat,
        estimated,
        streams,
        offers_tools,
    } = asked;
    let mut inner = state.lock();
    let authorized = inner.api_key.as_ref().is_none_or(|key| {
        headers.get("x-api-key") == Some(key)
            || headers.get("authorization") == Some(&format!("Bearer {key}"))
    });
    let window = inner.context_window;
    let too_long = matches!((estimated, window), (Some(e), Some(w)) if e > w);
    let index = inner.requests.len();
    inner.requests.push(RecordedRequest {
        method: method.to_string(),
        path,
        headers,
        body: body.clone(),
        received_ms: u64::try_from(state.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        status: 200,
        outcome: Outcome::Open,
        estimated_tokens: estimated,
    });
    let openai_tools = is_chat && format == Format::OpenAi && offers_tools;
    let refusal = inner
        .refuse_tools
        .clone()
        .filter(|_| openai_tools)
        .map(|r| (r.status, r.body))
        .or_else(|| {
            inner
                .refuse_streaming_tools
                .clone()
                .filter(|_| openai_tools && streams)
                .map(|r| (r.status, r.body()))
        });
    let reply = if is_chat && authorized && !too_long && refusal.is_none() {
        // An agent's side requests (titles, summaries) offer no tools: answered by the
        // side reply when there is one, they leave the queue to the conversation.
        match inner.side_reply.clone().filter(|_| !offers_tools) {
            Some(side) => Some(side),
            None => inner.replies.pop_front(),
        }
    } else {
        None
    };
    let probes = if is_chat {
        Probes::default()
    } else {
        inner.probes.clone()
    };
    Turn {
        index,
        reply,
        models: inner.models.clone(),
        authorized,
        probes,
        window,
        refusal,
    }
}

/// The vendor format a request speaks, and whether it asks for the models, a chat, or a
/// side endpoint (a probe).
fn classify(
    method: &Method,
    route: &str,
    headers: &BTreeMap<String, String>,
) -> (Format, bool, bool, Option<Endpoint>) {
    let format = if headers.contains_key("anthropic-version") || route.ends_with("/messages") {
        Format::Anthropic
    } else {
        Format::OpenAi
    };
    let is_models = method == Method::GET && route.ends_with("/v1/models");
    let is_chat = method == Method::POST
        && (route.ends_with("/v1/messages") || route.ends_with("/v1/chat/completions"));
    (format, is_models, is_chat, Endpoint::of(method, route))
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Result<Response<Body>, Infallible> {
    let Seen {
        method,
        path,
        route,
        headers,
        bytes,
        body,
    } = match read_request(req).await {
        Ok(seen) => seen,
        Err(response) => return Ok(response),
    };

    if let Some(control) = route.strip_prefix("/_fake/") {
        return Ok(self::control(&state, &method, control, &bytes));
    }
    let (format, is_models, is_chat, side) = classify(&method, &route, &headers);
    if !is_models && !is_chat && side.is_none() {
        return Ok(json_response(
            404,
            &json!({"error": format!("fake-model: no route for {method} {path}")}),
        ));
    }
    let estimated = is_chat.then(|| context::estimate_body(&bytes));
    let streams = body.get("stream") == Some(&Value::Bool(true));
    let offers_tools = body
        .get("tools")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty());
    let Turn {
        index,
        reply,
        models,
        authorized,
        probes,
        window,
        refusal,
    } = take_turn(
        &state,
        Asked {
            method: &method,
            path,
            headers,
            body: &body,
            format,
            is_chat,
            estimated,
            streams,
            offers_tools,
        },
    );
    state.changed.notify_waiters();
    let estimated = estimated.unwrap_or(0);
    let answered = if !authorized {
        Some(error_response(
            format,
            401,
            None,
            None,
            "fake-model: invalid x-api-key or bearer token",
        ))
    } else if let Some(endpoint) = side {
        probe::answer(&probes, endpoint, &body).map(body_response)
    } else if is_models {
        match probe::models_override(&probes) {
            Some(answer) => answer.map(body_response),
            None => Some(models_response(format, &models, &probes)),
        }
    } else if let Some((status, body)) = refusal {
        Some(json_response(status, &body))
    } else if let Some(limit) = window.filter(|w| estimated > *w) {
        Some(overflow_response(format, estimated, limit))
    } else {
        Some(match reply {
            Some(Reply {
                fault: Some(Fault::ContextOverflow { limit }),
                ..
            }) => {
                let limit = limit.or(window).unwrap_or(estimated.saturating_sub(1));
                overflow_response(format, estimated, limit)
            }
            Some(reply) => chat::respond(&state, index, format, &body, reply),
            None => error_response(
                format,
                400,
                None,
                None,
                "fake-model has no scripted reply left for this request",
            ),
        })
    };
    let Some(response) = answered else {
        // An endpoint told to hang: the client waits until it gives up.
        return Ok(std::future::pending().await);
    };
    record_end(&state, index, &response);
    Ok(response)
}

fn body_response((status, headers, body): probe::Answer) -> Response<Body> {
    let mut resp = Response::new(body);
    *resp.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/json"),
    );
    for (name, value) in headers {
        if let Ok(v) = hyper::header::HeaderValue::from_str(&value) {
            h.insert(name, v);
        }
    }
    resp
}

/// The vendor's answer to a request over the context window.
fn overflow_response(format: Format, estimated: u32, limit: u32) -> Response<Body> {
    let body = match format {
        Format::Anthropic => context::anthropic_overflow(estimated, limit),
        Format::OpenAi => context::openai_overflow(estimated, limit),
    };
    json_response(400, &body)
}

fn models_response(format: Format, models: &[String], probes: &Probes) -> Response<Body> {
    let names: Vec<String> = if models.is_empty() {
        vec!["fake-model".to_owned()]
    } else {
        models.to_vec()
    };
    // Extra fields a test configured for a model (`max_model_len`, `context_length`, ...).
    let with_fields = |id: &String, mut entry: Value| {
        if let (Some(fields), Some(obj)) = (probes.model_fields.get(id), entry.as_object_mut()) {
            obj.extend(fields.clone());
        }
        entry
    };
    let value = match format {
        Format::Anthropic => {
            let data: Vec<Value> = names
                .iter()
                .map(|id| with_fields(id, json!({"type": "model", "id": id, "display_name": format!("Fake {id}"), "created_at": "2025-01-01T00:00:00Z"})))
                .collect();
            json!({"data": data, "has_more": false, "first_id": names.first(), "last_id": names.last()})
        }
        Format::OpenAi => {
            let data: Vec<Value> = names
                .iter()
                .map(|id| with_fields(id, json!({"id": id, "object": "model", "created": 1_700_000_000u64, "owned_by": "fake"})))
                .collect();
            json!({"object": "list", "data": data})
        }
    };
    json_response(200, &value)
}

pub(crate) fn error_response(
    format: Format,
    status: u16,
    retry_after: Option<&str>,
    body: Option<Value>,
    message: &str,
) -> Response<Body> {
    let body = body.unwrap_or_else(|| match format {
        Format::Anthropic => anthropic::error_body(status, message),
        Format::OpenAi => openai::error_body(status, message),
    });
    let mut resp = json_response(status, &body);
    if let Some(v) = retry_after.and_then(|v| hyper::header::HeaderValue::from_str(v).ok()) {
        resp.headers_mut().insert("retry-after", v);
    }
    resp
}

/// `/_fake/...`: script and inspect the server from another process.
fn control(state: &State, method: &Method, what: &str, bytes: &[u8]) -> Response<Body> {
    let bad =
        |e: serde_json::Error| json_response(400, &json!({"error": format!("fake-model: {e}")}));
    match (method, what) {
        (&Method::GET, "health") => json_response(
            200,
            &json!({"ok": true, "pending": state.lock().replies.len()}),
        ),
        (&Method::GET, "requests") => {
            let requests = state.lock().requests.clone();
            json_response(200, &serde_json::to_value(requests).unwrap_or(Value::Null))
        }
        (&Method::POST, "replies") => {
            // One reply or a list of them, appended to the queue.
            let replies = match serde_json::from_slice::<Vec<Reply>>(bytes) {
                Ok(list) => list,
                Err(_) => match serde_json::from_slice::<Reply>(bytes) {
                    Ok(one) => vec![one],
                    Err(e) => return bad(e),
                },
            };
            let mut inner = state.lock();
            inner.replies.extend(replies);
            json_response(200, &json!({"pending": inner.replies.len()}))
        }
        (&Method::POST | &Method::PUT, "script") => match serde_json::from_slice::<Script>(bytes) {
            Ok(script) => {
                let mut inner = state.lock();
                inner.load(script);
                json_response(200, &json!({"pending": inner.replies.len()}))
            }
            Err(e) => bad(e),
        },
        (&Method::POST, "refuse_streaming_tools") => {
            match serde_json::from_slice::<Option<StreamRefusal>>(bytes) {
                Ok(refusal) => {
                    state.lock().refuse_streaming_tools = refusal.clone();
                    json_response(200, &json!({ "refuse_streaming_tools": refusal }))
                }
                Err(e) => bad(e),
            }
        }
        (&Method::POST, "side_reply") => match serde_json::from_slice::<Option<Reply>>(bytes) {
            Ok(reply) => {
                state.lock().side_reply = reply.clone();
                json_response(200, &json!({ "side_reply": reply }))
            }
            Err(e) => bad(e),
        },
        (&Method::POST, "refuse_tools") => {
            match serde_json::from_slice::<Option<ToolRefusal>>(bytes) {
                Ok(refusal) => {
                    state.lock().refuse_tools = refusal.clone();
                    json_response(200, &json!({ "refuse_tools": refusal }))
                }
                Err(e) => bad(e),
            }
        }
        (&Method::POST, "context_window") => {
            #[derive(serde::Deserialize)]
            #[serde(deny_unknown_fields)]
            struct Tokens {
                tokens: Option<u32>,
            }
            match serde_json::from_slice::<Tokens>(bytes) {
                Ok(t) => {
                    state.lock().context_window = t.tokens;
                    json_response(200, &json!({"context_window": t.tokens}))
                }
                Err(e) => bad(e),
            }
        }
        (&Method::POST, "reset") => {
            *state.lock() = Inner::default();
            json_response(200, &json!({"ok": true}))
        }
        _ => json_response(
            404,
            &json!({"error": format!("fake-model: no control endpoint {method} /_fake/{what}")}),
        ),
    }
}
