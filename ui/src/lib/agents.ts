// The "Add agent" form as text fields, and the agents.json entry they make. Lists are one
// item a line (hosts may also be comma-separated); variables are NAME=value lines.
import type { ExternalAgentConfig, ProviderKind } from './bindings';

export type KeyKind = '' | ProviderKind | 'value';

export type AgentForm = {
  name: string;
  command: string;
  args: string;
  env: string;
  hosts: string;
  keyKind: KeyKind;
  /** The keychain value's name, when `keyKind` is `value`. */
  keyValue: string;
  keyEnv: string;
  mode: string;
};

export const emptyForm = (): AgentForm => ({
  name: '',
  command: '',
  args: '',
  env: '',
  hosts: '',
  keyKind: '',
  keyValue: '',
  keyEnv: '',
  mode: '',
});

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The form showing `config` under `name`. */
export function formOf(name: string, config: ExternalAgentConfig): AgentForm {
  const key = config.key;
  return {
    name,
    command: config.command,
    args: (config.args ?? []).join('\n'),
    env: Object.entries(config.env ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    hosts: (config.hosts ?? []).join('\n'),
    keyKind: key ? (key.provider ?? 'value') : '',
    keyValue: key?.value ?? '',
    keyEnv: key?.env ?? '',
    mode: config.mode ?? '',
  };
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);

/** The entry the form makes, or what is wrong with it (the host checks the rest). */
export function configOf(form: AgentForm): { config: ExternalAgentConfig } | { error: string } {
  if (!form.name.trim()) return { error: 'Give the agent a name.' };
  if (!form.command.trim()) return { error: 'Name the program that speaks ACP.' };
  const env: Record<string, string> = {};
  for (const line of lines(form.env)) {
    const at = line.indexOf('=');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    if (!VARIABLE.test(name)) return { error: `"${line}" is not NAME=value.` };
    env[name] = line.slice(at + 1);
  }
  const config: ExternalAgentConfig = { command: form.command.trim() };
  const args = lines(form.args);
  if (args.length) config.args = args;
  if (Object.keys(env).length) config.env = env;
  const hosts = lines(form.hosts.replaceAll(',', '\n'));
  if (hosts.length) config.hosts = hosts;
  if (form.keyKind) {
    const keyEnv = form.keyEnv.trim();
    if (!VARIABLE.test(keyEnv)) return { error: 'Name the variable the key goes in (ANTHROPIC_API_KEY).' };
    if (form.keyKind === 'value') {
      const value = form.keyValue.trim();
      if (!VARIABLE.test(value)) return { error: 'Name the keychain value the key is kept as (GEMINI_API_KEY).' };
      config.key = { value, env: keyEnv };
    } else {
      config.key = { provider: form.keyKind, env: keyEnv };
    }
  }
  if (form.mode.trim()) config.mode = form.mode.trim();
  return { config };
}
