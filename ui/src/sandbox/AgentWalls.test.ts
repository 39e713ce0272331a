import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import AgentWalls from './AgentWalls.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => vi.resetAllMocks());

describe('AgentWalls', () => {
  it('says, per agent, where it writes, its network and its key', async () => {
    api.listAgents.mockResolvedValue([]);
    api.agentWalls.mockResolvedValue([
      {
        name: 'claude',
        command: 'claude-agent-acp',
        writable: ['/p/.agent-workspace', '/d/paddock-agents/p-1/claude'],
        network: "through Paddock's proxy, to the hosts the project's rules allow and api.anthropic.com",
        key: 'your anthropic key, as ANTHROPIC_API_KEY',
        runs: true,
      },
    ]);
    render(AgentWalls, { props: { project: '/p' } });
    const wall = await screen.findByTestId('agent-wall');
    expect(api.agentWalls).toHaveBeenCalledWith('/p');
    expect(wall.dataset['agent']).toBe('claude');
    expect(wall.textContent).toContain('/d/paddock-agents/p-1/claude');
    expect(screen.getByTestId('agent-wall-network').textContent).toContain('api.anthropic.com');
    expect(wall.textContent).toContain('ANTHROPIC_API_KEY');
  });

  it('offers to add an agent when there are none', async () => {
    api.agentWalls.mockResolvedValue([]);
    api.listAgents.mockResolvedValue([]);
    render(AgentWalls, { props: { project: '/p' } });
    await screen.findByTestId('agent-add-open');
    expect(screen.queryByTestId('agent-wall')).toBeNull();
  });

  it('adds a known agent as the form fills it, saying how to install it', async () => {
    api.agentWalls.mockResolvedValue([]);
    api.listAgents.mockResolvedValue([]);
    api.knownAgents.mockResolvedValue([
      {
        id: 'claude',
        title: 'Claude Code (ACP adapter)',
        install: 'npm install -g @agentclientprotocol/claude-agent-acp',
        installed: false,
        config: {
          command: 'claude-agent-acp',
          hosts: ['api.anthropic.com'],
          key: { provider: 'anthropic', env: 'ANTHROPIC_API_KEY' },
          mode: 'default',
        },
      },
    ]);
    api.saveAgent.mockResolvedValue([]);
    render(AgentWalls, { props: { project: '/p' } });
    await fireEvent.click(await screen.findByTestId('agent-add-open'));
    const known = await screen.findByTestId<HTMLSelectElement>('agent-known');
    await vi.waitFor(() => expect(known.options.length).toBe(2));
    await fireEvent.change(known, { target: { value: 'claude' } });
    expect((await screen.findByTestId('agent-install')).textContent).toContain('npm install -g');
    expect(screen.getByTestId<HTMLInputElement>('agent-name').value).toBe('claude');
    await fireEvent.click(screen.getByTestId('agent-save'));
    await vi.waitFor(() =>
      expect(api.saveAgent).toHaveBeenCalledWith(
        'claude',
        {
          command: 'claude-agent-acp',
          hosts: ['api.anthropic.com'],
          key: { provider: 'anthropic', env: 'ANTHROPIC_API_KEY' },
          mode: 'default',
        },
        false,
      ),
    );
    // Saved: the form closes and the walls are asked again.
    await vi.waitFor(() => expect(screen.queryByTestId('agent-form')).toBeNull());
    expect(api.agentWalls).toHaveBeenCalledTimes(2);
  });

  it("stores a key kept under its own name in the keychain, and shows the host's refusal", async () => {
    api.agentWalls.mockResolvedValue([]);
    api.listAgents.mockResolvedValue([]);
    api.knownAgents.mockResolvedValue([]);
    api.setMcpValue.mockResolvedValue(null);
    api.saveAgent.mockRejectedValue({ code: 'invalid', message: 'you already have an agent named g' });
    render(AgentWalls, { props: { project: '/p' } });
    await fireEvent.click(await screen.findByTestId('agent-add-open'));
    await fireEvent.input(screen.getByTestId('agent-name'), { target: { value: 'g' } });
    await fireEvent.input(screen.getByTestId('agent-command'), { target: { value: 'gemini' } });
    await fireEvent.change(screen.getByTestId('agent-key-kind'), { target: { value: 'value' } });
    await fireEvent.input(await screen.findByTestId('agent-key-value'), { target: { value: 'GEMINI_API_KEY' } });
    await fireEvent.input(screen.getByTestId('agent-key-secret'), { target: { value: 'sk-g' } });
    await fireEvent.input(screen.getByTestId('agent-key-env'), { target: { value: 'GEMINI_API_KEY' } });
    await fireEvent.click(screen.getByTestId('agent-save'));
    expect((await screen.findByTestId('agent-form-error')).textContent).toContain('already have an agent named g');
    expect(api.setMcpValue).toHaveBeenCalledWith('GEMINI_API_KEY', 'sk-g');
    expect(screen.getByTestId('agent-form')).toBeTruthy();
  });

  it('edits an agent from its entry and removes one after a second click', async () => {
    api.agentWalls.mockResolvedValue([
      { name: 'mine', command: 'prog --acp', writable: [], network: 'none', runs: true },
    ]);
    api.listAgents.mockResolvedValue([
      { name: 'mine', command: 'prog --acp', hosts: [], config: { command: 'prog', args: ['--acp'] } },
    ]);
    api.knownAgents.mockResolvedValue([]);
    api.saveAgent.mockResolvedValue([]);
    api.removeAgent.mockResolvedValue([]);
    render(AgentWalls, { props: { project: '/p' } });
    await fireEvent.click(await screen.findByTestId('agent-edit'));
    expect(screen.getByTestId<HTMLTextAreaElement>('agent-args').value).toBe('--acp');
    expect(screen.getByTestId<HTMLInputElement>('agent-name').disabled).toBe(true);
    await fireEvent.input(screen.getByTestId('agent-hosts'), { target: { value: 'api.x.com' } });
    await fireEvent.click(screen.getByTestId('agent-save'));
    await vi.waitFor(() =>
      expect(api.saveAgent).toHaveBeenCalledWith('mine', { command: 'prog', args: ['--acp'], hosts: ['api.x.com'] }, true),
    );
    await fireEvent.click(await screen.findByTestId('agent-remove'));
    expect(api.removeAgent).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('agent-remove-confirm'));
    await vi.waitFor(() => expect(api.removeAgent).toHaveBeenCalledWith('mine'));
  });
});
