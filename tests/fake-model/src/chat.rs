//! The answer to a model request from its scripted reply: an event stream in the vendor's
//! format, or, for a Chat Completions request that does not ask for a stream, one
//! `chat.completion` document. Faults apply either way.

use std::sync::Arc;
use std::time::Duration;

use hyper::Response;
use hyper::header::HeaderValue;
use serde_json::{Value, json};

use crate::body::{self, Body, Ending, Played};
use crate::script::{Fault, Reply};
use crate::server::{Format, State, error_response, json_response};
use crate::{anthropic, openai};

pub(crate) fn respond(
    state: &Arc<State>,
    index: usize,
    format: Format,
    request: &Value,
    reply: Reply,
) -> Response<Body> {
    if let Some(Fault::Status {
        status,
        retry_after,
        body,
    }) = &reply.fault
    {
        let message = format!("fake-model: injected HTTP {status}");
        return error_response(
            format,
            *status,
            retry_after.as_deref(),
            body.clone(),
            &message,
        );
    }
    if let Some(Fault::Redirect { status, location }) = &reply.fault {
        let mut resp = json_response(*status, &json!({}));
        if let Ok(v) = HeaderValue::from_str(location) {
            resp.headers_mut().insert("location", v);
        }
        return resp;
    }
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("fake-model");
    let n = u64::try_from(index).unwrap_or(u64::MAX);
    let streams = request.get("stream") == Some(&Value::Bool(true));
    if format == Format::OpenAi && !streams {
        return unstreamed(state, index, &reply, model, n);
    }
    let mut frames = match (&reply.raw_sse, format) {
        (Some(raw), _) => raw.split_inclusive("\n\n").map(str::to_owned).collect(),
        (None, Format::Anthropic) => anthropic::frames(&reply, model, n),
        (None, Format::OpenAi) => {
            let usage =
                request.pointer("/stream_options/include_usage") == Some(&Value::Bool(true));
            openai::frames(&reply, model, n, usage)
        }
    };
    let mut ending = Ending::Complete;
    if let Some(fault) = &reply.fault {
        let inserted = match format {
            Format::Anthropic => anthropic::fault_frame(fault),
            Format::OpenAi => openai::fault_frame(fault),
        };
        let (after, end) = match fault {
            Fault::Drop { after } => (*after, Ending::Drop),
            Fault::Hang { after } => (*after, Ending::Hang),
            Fault::Malformed { after } | Fault::StreamError { after, .. } => {
                (*after, Ending::Complete)
            }
            Fault::Status { .. } | Fault::Redirect { .. } | Fault::ContextOverflow { .. } => {
                (frames.len(), Ending::Complete)
            }
        };
        frames.truncate(after);
        frames.extend(inserted);
        ending = end;
    }
    let drip = reply.drip_ms.map(Duration::from_millis);
    let mut resp = Response::new(body::streaming(state.clone(), index, frames, drip, ending));
    resp.extensions_mut().insert(Played);
    let h = resp.headers_mut();
    h.insert(
        "content-type",
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert("cache-control", HeaderValue::from_static("no-cache"));
    resp
}

/// One JSON document. Faults: `malformed` cuts the document short, `stream_error` sends
/// an error document with status 200, `drop` cuts the connection halfway through the
/// document, `hang` never sends it; `drip_ms` delays it.
fn unstreamed(
    state: &Arc<State>,
    index: usize,
    reply: &Reply,
    model: &str,
    n: u64,
) -> Response<Body> {
    let doc = openai::whole(reply, model, n).to_string();
    let half = || {
        let mut cut = doc.len() / 2;
        while !doc.is_char_boundary(cut) {
            cut -= 1;
        }
        doc[..cut].to_owned()
    };
    let (frames, ending) = match &reply.fault {
        Some(Fault::Malformed { .. }) => (vec![half()], Ending::Complete),
        Some(Fault::StreamError {
            error_type,
            message,
            ..
        }) => {
            let error = json!({"error": {"message": message, "type": error_type,
                                          "param": null, "code": null}});
            (vec![error.to_string()], Ending::Complete)
        }
        Some(Fault::Drop { .. }) => (vec![half()], Ending::Drop),
        Some(Fault::Hang { .. }) => (Vec::new(), Ending::Hang),
        _ => (vec![doc], Ending::Complete),
    };
    let drip = reply.drip_ms.map(Duration::from_millis);
    let mut resp = Response::new(body::streaming(state.clone(), index, frames, drip, ending));
    resp.extensions_mut().insert(Played);
    resp.headers_mut()
        .insert("content-type", HeaderValue::from_static("application/json"));
    resp
}
