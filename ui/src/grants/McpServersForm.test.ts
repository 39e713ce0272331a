import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import McpServersForm from './McpServersForm.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

describe('McpServersForm', () => {
  beforeEach(() => vi.resetAllMocks());

  it('adds a server from the form', async () => {
    api.addMcpServer.mockResolvedValue(null);
    const ondone = vi.fn();
    render(McpServersForm, { props: { project: '/p', ondone } });
    await fireEvent.click(screen.getByTestId('mcp-add-open'));
    await fireEvent.input(screen.getByTestId('mcp-name'), { target: { value: 'files' } });
    await fireEvent.input(screen.getByTestId('mcp-command'), { target: { value: 'npx' } });
    await fireEvent.input(screen.getByTestId('mcp-args'), { target: { value: '-y\n@modelcontextprotocol/server-filesystem' } });
    await fireEvent.input(screen.getByTestId('mcp-env'), { target: { value: 'ROOT=${HOME}' } });
    await fireEvent.click(screen.getByTestId('mcp-add'));
    await vi.waitFor(() => expect(ondone).toHaveBeenCalled());
    expect(api.addMcpServer).toHaveBeenCalledWith('/p', 'files', {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem'],
      env: { ROOT: '${HOME}' },
      headers: {},
      autoApprove: [],
    });
    expect(screen.getByTestId('mcp-form-note')).toHaveTextContent('Added files.');
  });

  it('imports pasted entries and says they wait for trust', async () => {
    api.importMcpServers.mockResolvedValue(['gh']);
    const ondone = vi.fn();
    render(McpServersForm, { props: { project: '/p', ondone } });
    await fireEvent.click(screen.getByTestId('mcp-import-open'));
    const text = '{"servers": {"gh": {"type": "http", "url": "https://h/mcp"}}}';
    await fireEvent.input(screen.getByTestId('mcp-paste'), { target: { value: text } });
    await fireEvent.click(screen.getByTestId('mcp-import'));
    await vi.waitFor(() => expect(ondone).toHaveBeenCalled());
    expect(api.importMcpServers).toHaveBeenCalledWith('/p', text);
    expect(screen.getByTestId('mcp-form-note')).toHaveTextContent('Imported gh. Review and trust it before it starts.');
  });

  it("shows why an import was refused and keeps the pasted text", async () => {
    api.importMcpServers.mockRejectedValue({ code: 'invalid', message: 'mcpServers.x.bogus: unknown field `bogus`' });
    render(McpServersForm, { props: { project: '/p', ondone: () => {} } });
    await fireEvent.click(screen.getByTestId('mcp-import-project'));
    expect(await screen.findByTestId('mcp-form-error')).toHaveTextContent('mcpServers.x.bogus: unknown field');
    expect(api.importMcpServers).toHaveBeenCalledWith('/p', null);
  });
});

describe('McpServersForm keychain values', () => {
  beforeEach(() => vi.resetAllMocks());

  it('stores a variable value in the keychain, never in the settings', async () => {
    api.setMcpValue.mockResolvedValue(null);
    render(McpServersForm, { props: { project: '/p', ondone: () => {} } });
    await fireEvent.click(screen.getByTestId('mcp-value-open'));
    await fireEvent.input(screen.getByTestId('mcp-var-name'), { target: { value: 'GITHUB_TOKEN' } });
    await fireEvent.input(screen.getByTestId('mcp-var-value'), { target: { value: 'ghp_secret' } });
    await fireEvent.click(screen.getByTestId('mcp-var-save'));
    await vi.waitFor(() => expect(api.setMcpValue).toHaveBeenCalledWith('GITHUB_TOKEN', 'ghp_secret'));
    expect(await screen.findByTestId('mcp-form-note')).toHaveTextContent('Stored ${GITHUB_TOKEN} in the keychain');
    expect(api.addMcpServer).not.toHaveBeenCalled();
  });
});
