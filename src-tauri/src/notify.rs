//! Desktop notifications for a run in a window the user is not looking at: it finished, it
//! failed, or it waits for an approval. A click brings the window forward and shows the call.
//!
//! The page learns of a click by asking (`next_notification_click` waits for the next one),
//! not by a Tauri event: an event is a script the app process evaluates in the page, and the
//! first one starts a JavaScript engine in the app process that stays (+3.3 MB, measured with
//! the desktop floor).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use paddock_host::EventSink;
use paddock_protocol::{AgentEvent, ExitReason, NotificationClick};
use tauri::{AppHandle, Manager, Runtime, WebviewWindow};
use tauri_plugin_notification::NotificationExt;
use tokio::sync::watch;

/// Longest notification body.
const MAX_BODY_CHARS: usize = 160;
/// Clicks are routed for this many of the latest notifications (older ones are gone from
/// any notification list by then).
const MAX_TRACKED: usize = 64;

/// What one event is worth telling a user who is elsewhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub title: String,
    pub body: String,
    /// The call to show when the notification is clicked.
    pub call: Option<String>,
}

/// The notification for `event` in project `project`, when the window is in the background.
/// Only the main agent's run end counts: a teammate's run ends inside it.
pub fn note_for(event: &AgentEvent, project: &str, focused: bool) -> Option<Note> {
    if focused {
        return None;
    }
    let clip = |s: &str| -> String {
        if s.chars().count() > MAX_BODY_CHARS {
            format!("{}…", s.chars().take(MAX_BODY_CHARS).collect::<String>())
        } else {
            s.to_owned()
        }
    };
    match event {
        AgentEvent::ApprovalRequested { call, summary, .. } => Some(Note {
            title: format!("{project}: approval needed"),
            body: clip(&format!("{} {summary}", call.name)),
            call: Some(call.id.clone()),
        }),
        AgentEvent::RunFinished { exit, turns, .. } => {
            let (title, body) = match exit {
                ExitReason::EndTurn => ("run finished", format!("Answered after {turns} turn(s).")),
                ExitReason::Aborted => return None,
                other => (
                    "run stopped",
                    format!("Ended: {}.", other.as_str().replace('_', " ")),
                ),
            };
            Some(Note {
                title: format!("{project}: {title}"),
                body,
                call: None,
            })
        }
        // A teammate's approval waits like the main agent's; its run's end is not the run's.
        AgentEvent::Delegated { event, .. }
            if matches!(
                **event,
                AgentEvent::ApprovalRequested { .. } | AgentEvent::Delegated { .. }
            ) =>
        {
            note_for(event, project, focused)
        }
        AgentEvent::Error { message, .. } => Some(Note {
            title: format!("{project}: run failed"),
            body: clip(message),
            call: None,
        }),
        _ => None,
    }
}

/// Where each shown notification points, for its click.
#[derive(Default)]
pub struct Notifier {
    next: AtomicI32,
    targets: Mutex<BTreeMap<i32, (String, Option<String>)>>,
    /// Each window's latest click, by window label.
    clicks: Mutex<BTreeMap<String, watch::Sender<NotificationClick>>>,
}

impl Notifier {
    /// Routes clicks on Paddock's notifications to their windows.
    pub fn listen<R: Runtime>(app: &AppHandle<R>) {
        let handle = app.clone();
        let _ = app.notification().on_action(move |action| {
            let Some(id) = action.notification().map(|n| n.id()) else {
                return;
            };
            let notifier = handle.state::<Arc<Notifier>>();
            let target = lock(&notifier.targets).remove(&id);
            if let Some((label, call)) = target
                && let Some(window) = handle.get_webview_window(&label)
            {
                let _ = window.unminimize();
                let _ = window.set_focus();
                notifier.clicked(&label, call.unwrap_or_default());
            }
        });
    }

    /// Keeps a click on one of `label`'s notifications for its page to pick up.
    pub fn clicked(&self, label: &str, call_id: String) {
        self.inbox(label).send_modify(|click| {
            click.seq += 1;
            click.call_id = call_id;
        });
    }

    /// The click on one of `label`'s notifications after the one numbered `after` (None:
    /// after the latest so far), once there is one; None when the window closes first.
    pub async fn next_click(&self, label: &str, after: Option<u64>) -> Option<NotificationClick> {
        let mut clicks = self.inbox(label).subscribe();
        let after = after.unwrap_or_else(|| clicks.borrow().seq);
        let click = clicks.wait_for(|click| click.seq > after).await.ok()?;
        Some(click.clone())
    }

    /// The window closed: a page waiting for its clicks gets None.
    pub fn forget(&self, label: &str) {
        lock(&self.clicks).remove(label);
    }

    fn inbox(&self, label: &str) -> watch::Sender<NotificationClick> {
        lock(&self.clicks)
            .entry(label.to_owned())
            .or_insert_with(|| {
                watch::channel(NotificationClick {
                    seq: 0,
                    call_id: String::new(),
                })
                .0
            })
            .clone()
    }

    fn show<R: Runtime>(&self, window: &WebviewWindow<R>, note: Note) {
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        {
            let mut targets = lock(&self.targets);
            targets.insert(id, (window.label().to_owned(), note.call));
            while targets.len() > MAX_TRACKED {
                targets.pop_first();
            }
        }
        let shown = window
            .app_handle()
            .notification()
            .builder()
            .id(id)
            .title(note.title)
            .body(note.body)
            .show();
        if let Err(e) = shown {
            tracing::warn!("notification not shown: {e}");
        }
    }
}

/// `inner`, plus a notification for what a user elsewhere should know.
pub fn sink<R: Runtime>(
    window: WebviewWindow<R>,
    project: String,
    notifier: Arc<Notifier>,
    inner: Arc<dyn EventSink>,
) -> Arc<dyn EventSink> {
    Arc::new(paddock_host::FnSink(move |event: AgentEvent| {
        if matters(&event) {
            let focused = window.is_focused().unwrap_or(false);
            if let Some(note) = note_for(&event, &project, focused) {
                notifier.show(&window, note);
            }
        }
        inner.emit(event);
    }))
}

/// Cheap first look, so most events (text deltas) never ask the window for its focus.
fn matters(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::ApprovalRequested { .. }
            | AgentEvent::RunFinished { .. }
            | AgentEvent::Error { .. }
            | AgentEvent::Delegated { .. }
    )
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use paddock_protocol::{ErrorKind, TokenUsage, ToolCall};
    use serde_json::json;

    fn approval() -> AgentEvent {
        AgentEvent::ApprovalRequested {
            request_id: "approval-1".into(),
            call: ToolCall {
                id: "call-7".into(),
                name: "bash".into(),
                input: json!({"command": "rm -rf build"}),
                parsed_from_text: false,
            },
            summary: "rm -rf build".into(),
            why: String::new(),
            proposed_rules: None,
            rules_for_agent: None,
            preview: None,
        }
    }

    #[test]
    fn only_a_background_window_is_told() {
        assert_eq!(note_for(&approval(), "proj", true), None);
        let note = note_for(&approval(), "proj", false).unwrap();
        assert_eq!(note.title, "proj: approval needed");
        assert_eq!(note.body, "bash rm -rf build");
        assert_eq!(note.call.as_deref(), Some("call-7"));
    }

    #[test]
    fn runs_that_end_say_how_and_a_stop_by_the_user_says_nothing() {
        let end = |exit| AgentEvent::RunFinished {
            exit,
            turns: 3,
            usage: TokenUsage::default(),
            cost: None,
        };
        let done = note_for(&end(ExitReason::EndTurn), "p", false).unwrap();
        assert_eq!(
            (done.title.as_str(), done.body.as_str()),
            ("p: run finished", "Answered after 3 turn(s).")
        );
        let limit = note_for(&end(ExitReason::MaxTurns), "p", false).unwrap();
        assert_eq!(limit.body, "Ended: max turns.");
        assert_eq!(note_for(&end(ExitReason::Aborted), "p", false), None);
        let failed = AgentEvent::Error {
            kind: ErrorKind::Network,
            message: "x".repeat(500),
        };
        let note = note_for(&failed, "p", false).unwrap();
        assert_eq!(note.title, "p: run failed");
        assert_eq!(note.body.chars().count(), MAX_BODY_CHARS + 1);
        assert_eq!(
            note_for(&AgentEvent::TextDelta { text: "hi".into() }, "p", false),
            None
        );
        let teammate = |event| AgentEvent::Delegated {
            agent: "helper".into(),
            depth: 1,
            call_id: "call-1".into(),
            event: Box::new(event),
        };
        assert!(note_for(&teammate(approval()), "p", false).is_some());
        assert_eq!(
            note_for(&teammate(end(ExitReason::EndTurn)), "p", false),
            None
        );
    }

    #[tokio::test]
    async fn a_window_gets_its_own_clicks_in_turn_and_none_once_it_closes() {
        let notifier = Arc::new(Notifier::default());
        notifier.clicked("project-a", "call-1".into());
        // Asked from now on, the click before is not delivered again (a reloaded page).
        let waiting = {
            let n = notifier.clone();
            tokio::spawn(async move { n.next_click("project-a", None).await })
        };
        tokio::task::yield_now().await;
        notifier.clicked("project-b", "call-9".into());
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished(), "another window's click woke it");
        notifier.clicked("project-a", "call-2".into());
        let click = waiting.await.unwrap().unwrap();
        assert_eq!((click.seq, click.call_id.as_str()), (2, "call-2"));

        // Asked after a number it has seen, a click already there comes at once.
        let first = notifier.next_click("project-b", Some(0)).await.unwrap();
        assert_eq!((first.seq, first.call_id.as_str()), (1, "call-9"));

        let waiting = {
            let n = notifier.clone();
            tokio::spawn(async move { n.next_click("project-a", Some(2)).await })
        };
        tokio::task::yield_now().await;
        notifier.forget("project-a");
        assert_eq!(waiting.await.unwrap(), None);
    }
}
