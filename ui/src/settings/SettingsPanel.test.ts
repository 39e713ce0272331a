import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { project, settings } from '../test/project';
import SettingsPanel from './SettingsPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const SECRET = 'sk-ant-test-1234567890abcdef';

beforeEach(() => {
  vi.resetAllMocks();
  api.keyStatus.mockImplementation(async (provider) => ({ provider, stored: false }));
  api.listModels.mockResolvedValue([{ id: 'claude-x', display_name: 'Claude X' }, { id: 'claude-y' }]);
});

const show = (onchange = vi.fn()) =>
  render(SettingsPanel, { props: { info: project(), onchange } });

describe('SettingsPanel', () => {
  it('offers the provider models in a datalist, free text allowed', async () => {
    const { container } = show();
    await vi.waitFor(() => expect(container.querySelectorAll('datalist option')).toHaveLength(2));
    expect(api.listModels).toHaveBeenCalledWith('anthropic', null);
    expect(screen.getByTestId('model-input')).toHaveValue('claude-x');
    expect(screen.getByTestId('model-input')).toHaveAttribute('list', 'models');
  });

  it('defaults an OpenAI-compatible base URL to the local Ollama address', async () => {
    show();
    expect(screen.queryByTestId('base-url-input')).toBeNull();
    await fireEvent.change(screen.getByTestId('provider-select'), {
      target: { value: 'openai-compatible' },
    });
    expect(screen.getByTestId('base-url-input')).toHaveValue('http://localhost:11434/v1');
    await vi.waitFor(() =>
      expect(api.listModels).toHaveBeenLastCalledWith('openai-compatible', 'http://localhost:11434/v1'),
    );
  });

  it('saves provider, base URL and model over the current settings', async () => {
    const onchange = vi.fn();
    api.saveSettings.mockResolvedValue(project());
    show(onchange);
    await fireEvent.change(screen.getByTestId('provider-select'), { target: { value: 'openai-compatible' } });
    await fireEvent.input(screen.getByTestId('model-input'), { target: { value: 'qwen3:8b' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(onchange).toHaveBeenCalled());
    expect(api.saveSettings).toHaveBeenCalledWith('/home/u/proj', {
      ...settings,
      provider: 'openai-compatible',
      baseUrl: 'http://localhost:11434/v1',
      model: 'qwen3:8b',
      maxTurns: undefined,
      maxTokenBudget: undefined,
      systemPrompt: undefined,
    });
  });

  it('tests the connection and says what it found', async () => {
    api.testConnection.mockResolvedValue({ models: [{ id: 'claude-x' }], latency_ms: 87, model_available: true });
    show();
    await fireEvent.click(screen.getByTestId('test-connection'));
    const result = await screen.findByTestId('connection-result');
    expect(result).toHaveTextContent('Connected in 87 ms; 1 model listed. The model is offered.');
    expect(result).toHaveAttribute('data-ok', 'true');
    expect(api.testConnection).toHaveBeenCalledWith('anthropic', null, 'claude-x');
  });

  it('shows a failed connection', async () => {
    api.testConnection.mockRejectedValue({ code: 'provider', message: 'connection refused' });
    show();
    await fireEvent.click(screen.getByTestId('test-connection'));
    const result = await screen.findByTestId('connection-result');
    expect(result).toHaveTextContent('connection refused');
    expect(result).toHaveAttribute('data-ok', 'false');
  });
});

describe('API key', () => {
  it('sends the key to the keychain and never shows it again', async () => {
    api.setApiKey.mockResolvedValue({ provider: 'anthropic', stored: true });
    const { container } = show();
    await vi.waitFor(() => expect(screen.getByTestId('key-status')).toHaveTextContent('No key stored'));
    const input = screen.getByTestId('api-key-input');
    expect(input).toHaveAttribute('type', 'password');
    await fireEvent.input(input, { target: { value: SECRET } });
    await fireEvent.click(screen.getByTestId('api-key-save'));
    expect(api.setApiKey).toHaveBeenCalledWith('anthropic', SECRET);
    await vi.waitFor(() => expect(screen.getByTestId('key-status')).toHaveTextContent('Stored in keychain'));
    expect(input).toHaveValue('');
    expect(container.innerHTML).not.toContain(SECRET);
    expect(screen.getByTestId('api-key-delete')).toBeEnabled();
  });

  it('says when no keychain is reachable and how to fix it', async () => {
    api.setApiKey.mockRejectedValue({ code: 'keychain', message: 'The Secret Service is not running.' });
    show();
    await fireEvent.input(screen.getByTestId('api-key-input'), { target: { value: SECRET } });
    await fireEvent.click(screen.getByTestId('api-key-save'));
    const err = await screen.findByTestId('keychain-error');
    expect(err).toHaveTextContent('The Secret Service is not running.');
    expect(err).toHaveTextContent('ANTHROPIC_API_KEY');
    expect(screen.getByTestId('api-key-input')).toHaveValue('');
  });

  it('shows a keychain problem reported by the status', async () => {
    api.keyStatus.mockResolvedValue({ provider: 'anthropic', stored: false, keychain_error: 'No keyring daemon.' });
    show();
    expect(await screen.findByTestId('keychain-error')).toHaveTextContent('No keyring daemon.');
  });

  it('deletes a stored key', async () => {
    api.keyStatus.mockResolvedValue({ provider: 'anthropic', stored: true });
    api.deleteApiKey.mockResolvedValue({ provider: 'anthropic', stored: false, env_var: 'ANTHROPIC_API_KEY' });
    show();
    await vi.waitFor(() => expect(screen.getByTestId('api-key-delete')).toBeEnabled());
    await fireEvent.click(screen.getByTestId('api-key-delete'));
    await vi.waitFor(() =>
      expect(screen.getByTestId('key-status')).toHaveTextContent('using ANTHROPIC_API_KEY from the environment'),
    );
  });
});
