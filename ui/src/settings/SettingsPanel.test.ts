import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { compactionField, contextWindowField } from '../lib/settings';
import { project, settings } from '../test/project';
import SettingsPanel from './SettingsPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const SECRET = 'sk-ant-test-1234567890abcdef';

beforeEach(() => {
  vi.resetAllMocks();
  api.keyStatus.mockImplementation(async (provider) => ({ provider, stored: false }));
  api.listModels.mockResolvedValue([{ id: 'claude-x', display_name: 'Claude X' }, { id: 'claude-y' }]);
  // The file on disk, read again when saving.
  api.projectInfo.mockResolvedValue(project());
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

  it('saves only what was edited here onto the file as it is now (a hand edit or a picked model stays)', async () => {
    api.saveSettings.mockResolvedValue(project());
    // The form opened on the old file; since, the model was picked elsewhere, a rule saved and
    // maxTurns written by hand: none of it was seen by this form.
    render(SettingsPanel, { props: { info: project(), onchange: vi.fn() } });
    await fireEvent.input(screen.getByTestId('system-prompt-input'), { target: { value: 'Be brief.' } });
    const newer = { ...settings, model: 'claude-z', maxTurns: 7, rules: { bash: [{ allow: 'ls' }] } };
    api.projectInfo.mockResolvedValue(project({ settings: newer }));
    await fireEvent.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(api.saveSettings).toHaveBeenCalled());
    expect(api.saveSettings).toHaveBeenCalledWith('/home/u/proj', { ...newer, systemPrompt: 'Be brief.' });
  });

  it('saves nothing over a file that is broken now, and says why', async () => {
    render(SettingsPanel, { props: { info: project(), onchange: vi.fn() } });
    await fireEvent.input(screen.getByTestId('system-prompt-input'), { target: { value: 'Be brief.' } });
    api.projectInfo.mockResolvedValue(project({ settings: undefined, settings_error: 'line 8, column 3: expected `,`' }));
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByRole('alert')).toHaveTextContent('line 8, column 3');
    expect(api.saveSettings).not.toHaveBeenCalled();
  });

  it("does not list models from the folder's own address before it is trusted, only from one typed here", async () => {
    vi.useFakeTimers();
    const untrusted = project({
      settings: { ...settings, provider: 'openai-compatible', baseUrl: 'http://evil.example/v1' },
      trust: {
        folder: '/home/u/proj',
        pending: [{ key: 'baseUrl', what: 'send your API key to http://evil.example/v1', state: { state: 'new' } }],
        trusted: [],
        declined: true,
      },
    });
    render(SettingsPanel, { props: { info: untrusted, onchange: vi.fn() } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.listModels).not.toHaveBeenCalled();
    await fireEvent.input(screen.getByTestId('base-url-input'), { target: { value: 'http://localhost:8080/v1' } });
    await vi.advanceTimersByTimeAsync(1000);
    expect(api.listModels).toHaveBeenCalledWith('openai-compatible', 'http://localhost:8080/v1');
    vi.useRealTimers();
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

  it("drops a connection result and \"Saved.\" once a field is edited: they spoke of the old values", async () => {
    api.testConnection.mockRejectedValue({ code: 'provider', message: 'connection refused' });
    api.saveSettings.mockResolvedValue(project());
    show();
    await fireEvent.click(screen.getByTestId('test-connection'));
    await screen.findByTestId('connection-result');
    await fireEvent.input(screen.getByTestId('model-input'), { target: { value: 'claude-y' } });
    expect(screen.queryByTestId('connection-result')).toBeNull();

    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByText('Saved.')).toBeInTheDocument();
    await fireEvent.input(screen.getByLabelText('Max turns'), { target: { value: '7' } });
    expect(screen.queryByText('Saved.')).toBeNull();
  });

  it('says the models are being listed until the list (or its error) comes', async () => {
    let answer: (list: never) => void = () => {};
    api.listModels.mockReturnValue(new Promise((r) => (answer = r)) as never);
    show();
    const hint = () => screen.getByText(/Listing the models|offered|Could not list/);
    expect(hint()).toHaveTextContent('Listing the models…');
    await vi.waitFor(() => expect(api.listModels).toHaveBeenCalled());
    answer([{ id: 'claude-x' }] as never);
    await vi.waitFor(() => expect(hint()).toHaveTextContent('1 model offered'));
  });
});

describe('context and compaction settings', () => {
  const saved = (over = {}) => project({ settings: { ...settings, ...over } });

  it('shows what is saved, defaults when nothing is', () => {
    const a = render(SettingsPanel, { props: { info: project(), onchange: vi.fn() } });
    expect(screen.getByTestId('context-window-input')).toHaveValue(null);
    expect(screen.getByTestId('compaction-auto')).toBeChecked();
    expect(screen.getByTestId('compaction-threshold')).toHaveValue(80);
    expect(screen.getByTestId('replace-system-prompt')).not.toBeChecked();
    expect(screen.getByTestId('replace-system-prompt')).toBeDisabled();
    a.unmount();
    const info = saved({ contextWindow: 32_768, compaction: { auto: false, thresholdPercent: 60 }, systemPrompt: 'Be brief.', replaceSystemPrompt: true });
    render(SettingsPanel, { props: { info, onchange: vi.fn() } });
    expect(screen.getByTestId('context-window-input')).toHaveValue(32_768);
    expect(screen.getByTestId('compaction-auto')).not.toBeChecked();
    expect(screen.getByTestId('compaction-threshold')).toHaveValue(60);
    expect(screen.getByTestId('compaction-threshold')).toBeDisabled();
    expect(screen.getByTestId('replace-system-prompt')).toBeChecked();
  });

  it('saves the window, the compaction and the system prompt switch over the current settings', async () => {
    const onchange = vi.fn();
    api.saveSettings.mockResolvedValue(project());
    show(onchange);
    await fireEvent.input(screen.getByTestId('context-window-input'), { target: { value: '32768' } });
    await fireEvent.input(screen.getByTestId('compaction-threshold'), { target: { value: '70' } });
    await fireEvent.input(screen.getByTestId('system-prompt-input'), { target: { value: 'You are terse.' } });
    await fireEvent.click(screen.getByTestId('replace-system-prompt'));
    await fireEvent.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(onchange).toHaveBeenCalled());
    const sent = api.saveSettings.mock.calls[0]![1];
    expect(sent).toMatchObject({
      ...settings,
      contextWindow: 32_768,
      compaction: { auto: true, thresholdPercent: 70 },
      systemPrompt: 'You are terse.',
      replaceSystemPrompt: true,
    });
  });

  it('saves nothing for the defaults: an empty window is learned, 80 % is the kernel’s own', async () => {
    api.saveSettings.mockResolvedValue(project());
    show();
    await fireEvent.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(api.saveSettings).toHaveBeenCalled());
    const sent = api.saveSettings.mock.calls[0]![1];
    expect(sent.contextWindow).toBeUndefined();
    expect(sent.compaction).toBeUndefined();
    expect(sent.replaceSystemPrompt).toBeUndefined();
  });

  it('turns automatic compaction off', async () => {
    api.saveSettings.mockResolvedValue(project());
    show();
    await fireEvent.click(screen.getByTestId('compaction-auto'));
    expect(screen.getByTestId('compaction-threshold')).toBeDisabled();
    await fireEvent.click(screen.getByTestId('settings-save'));
    await vi.waitFor(() => expect(api.saveSettings).toHaveBeenCalled());
    expect(api.saveSettings.mock.calls[0]![1].compaction).toEqual({ auto: false, thresholdPercent: 80 });
  });

  // Out of range, the form's own checks stop the save (as for max turns); the browser says why.
  it.each([
    ['context-window-input', '512'],
    ['context-window-input', '20000000'],
    ['context-window-input', '4096.5'],
    ['compaction-threshold', '5'],
    ['compaction-threshold', '96'],
  ])('refuses %s = %s and saves nothing', async (testid, value) => {
    show();
    const input = screen.getByTestId(testid);
    await fireEvent.input(input, { target: { value } });
    expect(input).toBeInvalid();
    await fireEvent.click(screen.getByTestId('settings-save'));
    await new Promise((r) => setTimeout(r, 0));
    expect(api.saveSettings).not.toHaveBeenCalled();
  });

  it('refuses an empty threshold with automatic compaction on, and says why', async () => {
    show();
    await fireEvent.input(screen.getByTestId('compaction-threshold'), { target: { value: '' } });
    await fireEvent.click(screen.getByTestId('settings-save'));
    expect(await screen.findByRole('alert')).toHaveTextContent('Compaction threshold: a whole percent between 10 and 95.');
    expect(api.saveSettings).not.toHaveBeenCalled();
  });
});

describe('the fields as saved', () => {
  it.each([
    [null, { value: undefined }],
    [1_024, { value: 1_024 }],
    [10_000_000, { value: 10_000_000 }],
    [1_023, { error: 'Context window: a whole number of tokens between 1,024 and 10,000,000, or empty.' }],
    [10_000_001, { error: 'Context window: a whole number of tokens between 1,024 and 10,000,000, or empty.' }],
    [4_096.5, { error: 'Context window: a whole number of tokens between 1,024 and 10,000,000, or empty.' }],
  ])('context window %s', (v, field) => expect(contextWindowField(v)).toEqual(field));

  it.each([
    [true, 80, { value: undefined }],
    [true, 10, { value: { auto: true, thresholdPercent: 10 } }],
    [true, 95, { value: { auto: true, thresholdPercent: 95 } }],
    [false, 80, { value: { auto: false, thresholdPercent: 80 } }],
    [false, null, { value: { auto: false, thresholdPercent: 80 } }],
    [true, 9, { error: 'Compaction threshold: a whole percent between 10 and 95.' }],
    [true, 96, { error: 'Compaction threshold: a whole percent between 10 and 95.' }],
    [false, 96, { error: 'Compaction threshold: a whole percent between 10 and 95.' }],
    [true, null, { error: 'Compaction threshold: a whole percent between 10 and 95.' }],
  ])('compaction auto=%s threshold=%s', (auto, threshold, field) => expect(compactionField(auto, threshold)).toEqual(field));
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
