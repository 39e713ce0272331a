import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import AgentPicker from './AgentPicker.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => vi.resetAllMocks());

describe('AgentPicker', () => {
  it('is not there when the user added no external agent', async () => {
    api.listAgents.mockResolvedValue([]);
    render(AgentPicker, { props: { value: null, disabled: false } });
    await vi.waitFor(() => expect(api.listAgents).toHaveBeenCalled());
    expect(screen.queryByTestId('agent-picker')).toBeNull();
  });

  it('offers Paddock and each external agent, and says a choice', async () => {
    api.listAgents.mockResolvedValue([
      {
        name: 'claude',
        command: 'claude-agent-acp',
        hosts: ['api.anthropic.com'],
        key: 'your anthropic key, as ANTHROPIC_API_KEY',
        config: { command: 'claude-agent-acp', hosts: ['api.anthropic.com'] },
      },
    ]);
    render(AgentPicker, { props: { value: null, disabled: false } });
    const select = (await screen.findByTestId('agent-picker')) as HTMLSelectElement;
    const names = [...select.options].map((o) => o.textContent);
    expect(names).toEqual(['Paddock', 'claude (external)']);
    await fireEvent.change(select, { target: { value: 'claude' } });
    expect(select.value).toBe('claude');
  });

  it('says why when the agents file cannot be used', async () => {
    api.listAgents.mockRejectedValue({ code: 'usage', message: 'your agents file is broken' });
    render(AgentPicker, { props: { value: null, disabled: false } });
    expect((await screen.findByTestId('agent-picker-error')).textContent).toContain('agents file');
  });
});
