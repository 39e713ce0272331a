// Words for rewinds: the dialog's choices and the marker left between runs.
import type { RewindInfo, RewindMode } from './bindings';
import { plural } from './diff';

export const MODES: { mode: RewindMode; label: string; files: boolean; conversation: boolean }[] = [
  { mode: 'both', label: 'Files and conversation', files: true, conversation: true },
  { mode: 'files_only', label: 'Files only', files: true, conversation: false },
  { mode: 'conversation_only', label: 'Conversation only', files: false, conversation: true },
];

export const rewindsFiles = (mode: RewindMode) => mode !== 'conversation_only';
export const rewindsConversation = (mode: RewindMode) => mode !== 'files_only';

/** "Rewound files and conversation to prompt 2 (before step 3) — 4 files changed". */
export function rewindText(r: RewindInfo): string {
  const changed = r.changed.length === 0 ? 'no file changed' : `${plural(r.changed.length, 'file')} changed`;
  if (r.undoes !== undefined) return `Undid the rewind — ${changed}`;
  const what = r.files && r.conversation ? 'files and conversation' : r.files ? 'files' : 'conversation';
  const where = r.turn === 0 ? `to before prompt ${r.prompt}` : `to prompt ${r.prompt} (before step ${r.turn})`;
  return `Rewound ${what} ${where}${r.files ? ` — ${changed}` : ''}`;
}
