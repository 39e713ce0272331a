// The "Add MCP server" form's text fields as a settings entry, or what is wrong with them.
import type { McpServerConfig } from './bindings';

export interface ServerForm {
  kind: 'stdio' | 'http';
  command: string;
  /** One argument per line. */
  args: string;
  /** NAME=value per line. */
  env: string;
  url: string;
  /** Name: value per line. */
  headers: string;
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');

function pairs(text: string, sep: string, what: string): Record<string, string> | string {
  const out: Record<string, string> = {};
  for (const line of lines(text)) {
    const at = line.indexOf(sep);
    if (at <= 0) return `${what}: expected "NAME${sep === '=' ? '=' : ': '}value" in "${line}"`;
    out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

export function serverConfig(form: ServerForm): { config: McpServerConfig } | { error: string } {
  if (form.kind === 'stdio') {
    if (!form.command.trim()) return { error: 'Give the command that starts the server.' };
    const env = pairs(form.env, '=', 'Environment');
    if (typeof env === 'string') return { error: env };
    return { config: { command: form.command.trim(), args: lines(form.args), env, headers: {}, autoApprove: [] } };
  }
  if (!form.url.trim()) return { error: "Give the server's URL." };
  const headers = pairs(form.headers, ':', 'Headers');
  if (typeof headers === 'string') return { error: headers };
  return { config: { url: form.url.trim(), args: [], env: {}, headers, autoApprove: [] } };
}
