import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { project, settings } from '../test/project';
import ModelPicker from './ModelPicker.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

describe('ModelPicker', () => {
  beforeEach(() => vi.resetAllMocks());

  it("lists the provider's models with the current one, and saves a pick", async () => {
    api.listModels.mockResolvedValue([{ id: 'claude-y' }, { id: 'claude-z' }] as never);
    const picked = project({ settings: { ...settings, model: 'claude-z' } });
    api.setModel.mockResolvedValue(picked);
    const onchange = vi.fn();
    render(ModelPicker, { props: { info: project(), disabled: false, onchange } });
    const select = screen.getByTestId('model-picker') as HTMLSelectElement;
    await vi.waitFor(() => expect(select.options).toHaveLength(3));
    expect([...select.options].map((o) => o.value)).toEqual(['claude-x', 'claude-y', 'claude-z']);
    expect(select.value).toBe('claude-x');
    expect(api.listModels).toHaveBeenCalledWith('anthropic', null);
    await fireEvent.change(select, { target: { value: 'claude-z' } });
    expect(api.setModel).toHaveBeenCalledWith('/home/u/proj', 'claude-z');
    await vi.waitFor(() => expect(onchange).toHaveBeenCalledWith(picked));
  });

  it('keeps the current model when the list cannot be read', async () => {
    api.listModels.mockRejectedValue({ code: 'provider', message: 'offline' });
    render(ModelPicker, { props: { info: project(), disabled: false, onchange: () => {} } });
    const select = screen.getByTestId('model-picker') as HTMLSelectElement;
    await vi.waitFor(() => expect(api.listModels).toHaveBeenCalled());
    expect([...select.options].map((o) => o.value)).toEqual(['claude-x']);
  });
});
