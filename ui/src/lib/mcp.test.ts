import { describe, expect, it } from 'vitest';
import { serverConfig, type ServerForm } from './mcp';

const form = (over: Partial<ServerForm>): ServerForm => ({
  kind: 'stdio',
  command: '',
  args: '',
  env: '',
  url: '',
  headers: '',
  ...over,
});

describe('serverConfig', () => {
  it('builds a stdio entry, keeping ${VAR}s as typed', () => {
    expect(
      serverConfig(form({ command: ' npx ', args: '-y\n @x/server \n\n', env: 'TOKEN=${GH_TOKEN}\nLOG = info' })),
    ).toEqual({
      config: { command: 'npx', args: ['-y', '@x/server'], env: { TOKEN: '${GH_TOKEN}', LOG: 'info' }, headers: {}, autoApprove: [] },
    });
  });

  it('builds an HTTP entry with headers', () => {
    expect(serverConfig(form({ kind: 'http', url: 'https://h/mcp', headers: 'Authorization: Bearer ${T}' }))).toEqual({
      config: { url: 'https://h/mcp', args: [], env: {}, headers: { Authorization: 'Bearer ${T}' }, autoApprove: [] },
    });
  });

  it('says what is missing or malformed', () => {
    expect(serverConfig(form({}))).toEqual({ error: 'Give the command that starts the server.' });
    expect(serverConfig(form({ kind: 'http' }))).toEqual({ error: "Give the server's URL." });
    expect(serverConfig(form({ command: 'x', env: 'NOEQUALS' }))).toEqual({
      error: 'Environment: expected "NAME=value" in "NOEQUALS"',
    });
  });
});
