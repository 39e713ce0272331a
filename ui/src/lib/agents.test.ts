import { describe, expect, it } from 'vitest';
import { configOf, emptyForm, formOf } from './agents';
import type { ExternalAgentConfig } from './bindings';

describe('the agent form', () => {
  it('round-trips an entry through its fields', () => {
    const claude: ExternalAgentConfig = {
      command: 'claude-agent-acp',
      args: ['--flag', 'a b'],
      env: { IS_SANDBOX: '1', URL: 'http://x/?a=b' },
      hosts: ['api.anthropic.com', '127.0.0.1:8080'],
      key: { provider: 'anthropic', env: 'ANTHROPIC_API_KEY' },
      mode: 'default',
    };
    expect(configOf(formOf('claude', claude))).toEqual({ config: claude });
    const gemini: ExternalAgentConfig = { command: 'gemini', args: ['--acp'], key: { value: 'GEMINI_API_KEY', env: 'GEMINI_API_KEY' } };
    expect(configOf(formOf('gemini', gemini))).toEqual({ config: gemini });
  });

  it('takes hosts comma-separated and leaves empty lists out', () => {
    const form = { ...emptyForm(), name: 'x', command: ' prog ', hosts: 'a.com, b.com\n\n' };
    expect(configOf(form)).toEqual({ config: { command: 'prog', hosts: ['a.com', 'b.com'] } });
  });

  it('says what is wrong instead of saving half an entry', () => {
    const base = { ...emptyForm(), name: 'x', command: 'p' };
    expect(configOf({ ...base, name: ' ' })).toEqual({ error: 'Give the agent a name.' });
    expect(configOf({ ...base, command: '' })).toHaveProperty('error');
    expect(configOf({ ...base, env: 'NOEQUALS' })).toEqual({ error: '"NOEQUALS" is not NAME=value.' });
    expect(configOf({ ...base, env: '1A=b' })).toHaveProperty('error');
    expect(configOf({ ...base, keyKind: 'anthropic', keyEnv: '' })).toHaveProperty('error');
    expect(configOf({ ...base, keyKind: 'value', keyEnv: 'K', keyValue: 'bad name' })).toHaveProperty('error');
  });
});
