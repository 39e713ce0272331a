// The one line a tool card shows before it is expanded.

const MAX = 100;

function clip(s: string): string {
  const line = s.replace(/\s+/g, ' ').trim();
  return line.length > MAX ? `${line.slice(0, MAX - 1)}…` : line;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** A short, readable summary of a tool call's input. */
export function summarizeInput(name: string, input: unknown): string {
  if (input === undefined) return '';
  if (!input || typeof input !== 'object' || Array.isArray(input)) return clip(JSON.stringify(input));
  const o = input as Record<string, unknown>;
  const path = str(o.path);
  switch (name) {
    case 'file_read':
    case 'file_write':
    case 'file_edit':
      if (path) return clip(path);
      break;
    case 'grep':
    case 'glob':
      if (str(o.pattern)) return clip(path ? `${str(o.pattern)} in ${path}` : str(o.pattern)!);
      break;
    case 'bash': {
      const command = str(o.command);
      if (command) return clip(command.split('\n')[0] ?? '');
      break;
    }
    case 'delegate_to_agent':
      if (str(o.agent)) return clip(`${str(o.agent)}: ${str(o.task) ?? ''}`);
      break;
  }
  // Unknown (e.g. MCP) tools: the first string field, else compact JSON.
  const first = Object.values(o).find((v) => typeof v === 'string');
  return clip(typeof first === 'string' ? first : JSON.stringify(o));
}

/** Pretty JSON for the expanded input. */
export function prettyInput(input: unknown): string {
  if (input === undefined) return '(not recorded)';
  return JSON.stringify(input, null, 2) ?? String(input);
}
