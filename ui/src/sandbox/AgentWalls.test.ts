import { render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import AgentWalls from './AgentWalls.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => vi.resetAllMocks());

describe('AgentWalls', () => {
  it('says, per agent, where it writes, its network and its key', async () => {
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

  it('is not there without agents', async () => {
    api.agentWalls.mockResolvedValue([]);
    render(AgentWalls, { props: { project: '/p' } });
    await vi.waitFor(() => expect(api.agentWalls).toHaveBeenCalled());
    expect(screen.queryByTestId('agent-walls')).toBeNull();
  });
});
