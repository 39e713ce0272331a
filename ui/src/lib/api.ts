// What components import to talk to the shell: the generated client (commands.ts, one typed
// function per command of src-tauri/src/commands.rs), and the few helpers that follow a
// shell feed or fill in defaults. Nothing else calls `invoke`.
import * as commands from './commands';
import type {
  AgentEvent,
  Batch,
  NotificationClick,
  PromptAttachment,
  SessionTranscript,
  WorkspaceChange,
} from './bindings';

export * from './commands';
export { toAppError } from './invoke';

/** Starts a run and resolves with its session id; the run's events then reach `onEvent`, in
 * order, until its `run_finished`. A new session works in `worktree` when one is named, and
 * goes to the external `agent` when one is named. */
export async function sendPrompt(
  project: string,
  sessionId: string | null,
  prompt: string,
  onEvent: (event: AgentEvent) => void,
  worktree: string | null = null,
  attachments: PromptAttachment[] = [],
  agent: string | null = null,
): Promise<string> {
  const input = agent === null ? { text: prompt, attachments } : { text: prompt, attachments, agent };
  const started = await commands.sendPrompt(project, sessionId, input, worktree);
  void follow(commands.nextRunEvents, started.feed, onEvent);
  return started.session_id;
}

/** The session whole, or with `tail` its last turns (at least that many; `omitted` says what
 * was left out). */
export const loadSession = (project: string, sessionId: string, tail?: number): Promise<SessionTranscript> =>
  commands.loadSession(project, sessionId, tail ?? null);

/** Starts (or replaces) this window's watcher; `onChange` gets debounced batches. */
export async function watchWorkspace(
  project: string,
  onChange: (change: WorkspaceChange) => void,
): Promise<void> {
  const feed = await commands.watchWorkspace(project);
  void follow(commands.nextWorkspaceChanges, feed, onChange);
}

/**
 * Hands every item of one of the shell's feeds to `onItem`, in order, asking for the next
 * batch until the feed is done. Asking, rather than a Tauri channel, keeps the app process
 * from evaluating a script in the page per item: see src-tauri/src/feed.rs.
 */
async function follow<T>(next: (feed: number) => Promise<Batch<T>>, feed: number, onItem: (item: T) => void): Promise<void> {
  for (;;) {
    // A failed ask ends it: the shell is gone, and asking again would only spin.
    const batch = await next(feed).catch(() => null);
    if (!batch) return;
    for (const item of batch.items) onItem(item);
    if (batch.done) return;
  }
}

/** Calls `onCall` with the call id when one of this window's notifications is clicked ('' for
 * a finished run); returns a function that stops listening. It asks the shell for each click
 * in turn rather than taking a Tauri event: see src-tauri/src/notify.rs. */
export function onNotificationClick(onCall: (callId: string) => void): () => void {
  let stopped = false;
  void (async () => {
    let after: number | null = null;
    while (!stopped) {
      const click: NotificationClick | null = await commands
        .nextNotificationClick(after)
        .catch(() => null);
      // Null: the window is closing (or the shell failed; asking again would only spin).
      if (!click || stopped) return;
      after = click.seq;
      onCall(click.call_id);
    }
  })();
  return () => {
    stopped = true;
  };
}
