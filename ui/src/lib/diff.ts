// The pure part of showing a file change (FileChange from the Rust side): line numbers, what
// part of a long diff shows first, and the one-line texts for what is not a text diff.
import type { ChangeKind, ChangeSummary, DiffHunk, FileChange, LineEnd, LineOp } from './bindings';
import { formatBytes } from './format';

/** Past this many lines a diff shows its start and a "Show all" button. */
export const COLLAPSE_LINES = 40;

export interface Row {
  op: LineOp;
  text: string;
  end?: LineEnd;
  /** Line number in the old file (context and removed lines). */
  old?: number;
  /** Line number in the new file (context and added lines). */
  new?: number;
}

export interface ShownHunk {
  header: string;
  rows: Row[];
  /** Lines of the hunk left out (only the last shown hunk of a collapsed diff has any). */
  cut: number;
}

export const hunkHeader = (h: DiffHunk): string =>
  `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@`;

/** The hunk's lines, numbered on each side from the hunk's starts. */
export function numberLines(h: DiffHunk): Row[] {
  let old = h.old_start;
  let now = h.new_start;
  return h.lines.map((l): Row => {
    if (l.op === 'added') return { ...l, new: now++ };
    if (l.op === 'removed') return { ...l, old: old++ };
    return { ...l, old: old++, new: now++ };
  });
}

export const lineCount = (hunks: DiffHunk[]): number => hunks.reduce((n, h) => n + h.lines.length, 0);

/** The hunks to show: the first ones up to `limit` lines, the last of them cut short if needed. */
export function shownHunks(hunks: DiffHunk[], limit = Infinity): ShownHunk[] {
  const out: ShownHunk[] = [];
  let budget = limit;
  for (const h of hunks) {
    if (budget <= 0) break;
    const rows = numberLines(h);
    const keep = Math.min(rows.length, budget);
    out.push({ header: hunkHeader(h), rows: rows.slice(0, keep), cut: rows.length - keep });
    budget -= keep;
  }
  return out;
}

const octal = (mode: number) => (mode & 0o7777).toString(8);

/**
 * "mode 644 → 755" when the permissions changed; for a new file only when it can be run
 * (every created file has a mode, and "mode 644" on each would be noise).
 */
export function modeText(change: FileChange): string | undefined {
  const m = change.mode;
  if (!m) return undefined;
  if (m.old !== null && m.new !== null) return m.old === m.new ? undefined : `mode ${octal(m.old)} → ${octal(m.new)}`;
  if (m.new !== null && change.kind === 'created' && change.diff.kind !== 'folder' && m.new & 0o111) {
    return `mode ${octal(m.new)}`;
  }
  return undefined;
}

/** "1.2 KB → 3.4 KB", or the one side that exists. */
function sizes(kind: ChangeKind, old: number, now: number): string {
  if (kind === 'created') return formatBytes(now);
  if (kind === 'deleted') return formatBytes(old);
  return `${formatBytes(old)} → ${formatBytes(now)}`;
}

/** The body of a change that has no lines to show, in words; undefined for a text diff with hunks. */
export function bodyText(change: FileChange): string | undefined {
  const d = change.diff;
  switch (d.kind) {
    case 'text':
      if (d.hunks.length > 0) return undefined;
      return { created: 'Empty file', deleted: 'Empty file removed', modified: 'Same content' }[change.kind];
    case 'binary':
      return `Binary file, ${sizes(change.kind, d.old_bytes, d.new_bytes)}`;
    case 'too_large':
      return `Too large to show: +${change.added} −${change.removed} lines, ${sizes(change.kind, d.old_bytes, d.new_bytes)}`;
    case 'link':
      if (d.old !== null && d.new !== null) return `Symbolic link → ${d.old}, now → ${d.new}`;
      if (d.new !== null) return `Symbolic link → ${d.new}`;
      return `Symbolic link → ${d.old ?? '?'} (removed)`;
    case 'folder':
      return { created: 'Folder created', deleted: 'Folder removed', modified: 'Folder' }[change.kind];
  }
}

/** A row of the Changes list: "+3 −1", or why there are no line counts. */
export const countsText = (s: Pick<ChangeSummary, 'added' | 'removed' | 'lines_counted'>): string =>
  s.lines_counted ? `+${s.added} −${s.removed}` : 'not text';

/** The line ending's tag, when it is not a plain `\n`. */
export const endTag = (end: LineEnd | undefined): string | undefined =>
  end && { crlf: 'CRLF', cr: 'CR', missing: 'No newline at end of file' }[end];

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
