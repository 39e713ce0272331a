import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { HookInfo, NetworkView, ToolGrantInfo } from '../lib/bindings';
import { project, settings } from '../test/project';
import GrantRow from './GrantRow.svelte';
import GrantsPanel from './GrantsPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const networkView: NetworkView = {
  written: { allow: [], ask: [], deny: [], presets: [] },
  waiting: [],
  bash: 'none',
  presets: [],
};

const grants: ToolGrantInfo[] = [
  { name: 'file_read', grant: 'allow', reason: 'allowed — preset readonly', runtime: false, mutates: false },
  { name: 'bash', grant: 'ask', reason: 'ask — set for this project', runtime: false, mutates: false },
  { name: 'file_write', grant: 'deny', reason: 'denied — not in preset readonly', runtime: false, mutates: false },
  { name: 'mcp__everything__echo', grant: 'allow', reason: 'allowed — MCP server everything', runtime: true, mutates: false },
  { name: 'mcp__everything__add', grant: 'deny', reason: 'denied — deny list', runtime: true, mutates: false },
];

describe('GrantRow', () => {
  it('shows the effective grant, the reason and which control is set', () => {
    render(GrantRow, { props: { tool: grants[2]!, onset: () => {} } });
    const row = screen.getByTestId('grant-row');
    expect(row).toHaveAttribute('data-tool', 'file_write');
    expect(row).toHaveAttribute('data-grant', 'deny');
    expect(within(row).getByTestId('grant-reason')).toHaveTextContent(
      'file_write: denied — not in preset readonly',
    );
    expect(within(row).getByTestId('grant-inherit')).toHaveAttribute('aria-checked', 'true');
    expect(within(row).getByTestId('grant-deny')).toHaveAttribute('aria-checked', 'false');
  });

  it('marks an override and reports clicks, null for inherit', async () => {
    const onset = vi.fn();
    render(GrantRow, { props: { tool: grants[1]!, override: 'ask', onset } });
    expect(screen.getByTestId('grant-ask')).toHaveAttribute('aria-checked', 'true');
    expect(screen.getByTestId('grant-inherit')).toHaveAttribute('aria-checked', 'false');
    await fireEvent.click(screen.getByTestId('grant-allow'));
    await fireEvent.click(screen.getByTestId('grant-inherit'));
    expect(onset.mock.calls).toEqual([['allow'], [null]]);
  });
});

describe('GrantsPanel', () => {
  beforeEach(() => {
    vi.resetAllMocks();
    api.toolGrants.mockResolvedValue(grants);
    api.networkView.mockResolvedValue(networkView);
    api.mcpStatus.mockResolvedValue([{ name: 'everything', state: { state: 'running', tools: ['echo', 'add'] } }]);
    api.projectInfo.mockResolvedValue(project());
  });

  it('lists built-in tools, then MCP tools under their server', async () => {
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    const server = await screen.findByTestId('mcp-server');
    expect(server).toHaveAttribute('data-server', 'everything');
    expect(within(server).getAllByTestId('grant-row').map((r) => r.dataset.tool)).toEqual([
      'mcp__everything__echo',
      'mcp__everything__add',
    ]);
    expect(screen.getAllByTestId('grant-row')).toHaveLength(5);
    expect(screen.getByTestId('preset-select')).toHaveValue('readonly');
  });

  it('shows what the managed policy fixes, locked', async () => {
    const managed = {
      files: ['/etc/paddock/managed-settings.json'],
      summary: ['presets capped at readwrite', '1 deny rule(s)', 'no bashNetwork'],
      max_preset: 'readwrite' as const,
      deny_rules: ['bash: curl *'],
      require_wall: true,
      forbid_bash_network: true,
      network_fixed: false,
    };
    render(GrantsPanel, { props: { info: project({ managed }), onchange: () => {} } });
    const banner = await screen.findByTestId('managed-policy');
    expect(banner).toHaveTextContent('/etc/paddock/managed-settings.json');
    expect(banner).toHaveTextContent('presets capped at readwrite');
    expect(screen.getByTestId('managed-deny-rule')).toHaveTextContent('deny bash: curl *');
    const full = screen.getByRole('option', { name: /full: \+ bash/ });
    expect(full).toBeDisabled();
    expect(full).toHaveTextContent('locked by policy');
    expect(screen.getByRole('option', { name: /readwrite/ })).not.toBeDisabled();
    expect(screen.getByTestId('bash-network-toggle')).toBeDisabled();
  });

  it('says a broken policy stops runs', async () => {
    const managed = { ...project().managed, error: 'the managed policy /etc/paddock/x.json cannot be used' };
    render(GrantsPanel, { props: { info: project({ managed }), onchange: () => {} } });
    expect(await screen.findByTestId('managed-error')).toHaveTextContent('cannot be used');
    expect(screen.queryByTestId('managed-policy')).toBeNull();
  });

  it('lists a server that did not start, or that is off, with its state and error', async () => {
    api.mcpStatus.mockResolvedValue([
      { name: 'everything', state: { state: 'running', tools: ['echo', 'add'] } },
      { name: 'github', state: { state: 'failed', error: 'env.TOKEN: ${GITHUB_TOKEN} is not set' } },
      { name: 'old', state: { state: 'disabled' } },
    ] as never);
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    await vi.waitFor(() => expect(screen.getAllByTestId('mcp-server')).toHaveLength(3));
    const server = (name: string) => screen.getAllByTestId('mcp-server').find((s) => s.dataset.server === name)!;
    expect(within(server('github')).getByTestId('mcp-state')).toHaveTextContent('did not start');
    expect(server('github')).toHaveTextContent('GITHUB_TOKEN} is not set');
    expect(within(server('github')).queryAllByTestId('grant-row')).toHaveLength(0);
    expect(within(server('old')).getByTestId('mcp-state')).toHaveTextContent('disabled in the settings');
    expect(within(server('everything')).getAllByTestId('grant-row')).toHaveLength(2);
  });

  it('follows a starting server until it is up, then shows its tools', async () => {
    vi.useFakeTimers();
    try {
      const builtIn = grants.filter((g) => !g.runtime);
      api.toolGrants.mockResolvedValueOnce(builtIn).mockResolvedValue(grants);
      api.mcpStatus
        .mockResolvedValueOnce([{ name: 'everything', state: { state: 'starting' } }])
        .mockResolvedValueOnce([{ name: 'everything', state: { state: 'starting' } }])
        .mockResolvedValue([{ name: 'everything', state: { state: 'running', tools: ['echo', 'add'] } }]);
      const { unmount } = render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
      await vi.waitFor(() => expect(screen.getByTestId('mcp-state')).toHaveTextContent('starting'));
      await vi.advanceTimersByTimeAsync(1000);
      expect(screen.getByTestId('mcp-state')).toHaveTextContent('starting');
      await vi.advanceTimersByTimeAsync(1000);
      await vi.waitFor(() => expect(screen.getByTestId('mcp-state')).toHaveTextContent('running'));
      await vi.waitFor(() => expect(within(screen.getByTestId('mcp-server')).getAllByTestId('grant-row')).toHaveLength(2));
      // Up: no more asking, and none after the panel is gone.
      await vi.advanceTimersByTimeAsync(5000);
      expect(api.mcpStatus).toHaveBeenCalledTimes(3);
      unmount();
    } finally {
      vi.useRealTimers();
    }
  });

  it('stops asking once the panel is gone', async () => {
    vi.useFakeTimers();
    try {
      api.mcpStatus.mockResolvedValue([{ name: 'everything', state: { state: 'starting' } }]);
      const { unmount } = render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
      await vi.waitFor(() => expect(api.mcpStatus).toHaveBeenCalledTimes(1));
      unmount();
      await vi.advanceTimersByTimeAsync(5000);
      expect(api.mcpStatus).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it('saves a grant at once and shows the new state', async () => {
    const onchange = vi.fn();
    api.setToolGrant.mockResolvedValue(
      grants.map((g) => (g.name === 'file_write' ? { ...g, grant: 'ask', reason: 'ask — set for this project' } : g)),
    );
    render(GrantsPanel, { props: { info: project(), onchange } });
    await screen.findByTestId('mcp-server');
    const row = screen.getAllByTestId('grant-row').find((r) => r.dataset.tool === 'file_write')!;
    await fireEvent.click(within(row).getByTestId('grant-ask'));
    expect(api.setToolGrant).toHaveBeenCalledWith('/home/u/proj', 'file_write', 'ask');
    await vi.waitFor(() => expect(row).toHaveAttribute('data-grant', 'ask'));
    expect(onchange).toHaveBeenCalled();
  });

  it('sets the preset, and none as null', async () => {
    api.setPreset.mockResolvedValue(grants);
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    const select = screen.getByTestId('preset-select');
    await fireEvent.change(select, { target: { value: 'full' } });
    await vi.waitFor(() => expect(api.setPreset).toHaveBeenCalledWith('/home/u/proj', 'full'));
    await fireEvent.change(select, { target: { value: '' } });
    await vi.waitFor(() => expect(api.setPreset).toHaveBeenLastCalledWith('/home/u/proj', null));
  });

  it('saves the bash network toggle into the settings as the file is now (a hand edit stays)', async () => {
    api.saveSettings.mockResolvedValue(project());
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    const edited = { ...settings, maxTokenBudget: 5000 };
    api.projectInfo.mockResolvedValue(project({ settings: edited }));
    await fireEvent.click(screen.getByTestId('bash-network-toggle'));
    await vi.waitFor(() =>
      expect(api.saveSettings).toHaveBeenCalledWith('/home/u/proj', { ...edited, bashNetwork: true }),
    );
  });

  it('unticks the network box when its save failed: it shows what is saved', async () => {
    api.saveSettings.mockRejectedValue({ code: 'settings', message: 'settings.json line 3: bad' });
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    const box = screen.getByTestId('bash-network-toggle');
    await fireEvent.click(box);
    expect(await screen.findByRole('alert')).toHaveTextContent('settings.json line 3: bad');
    expect(box).not.toBeChecked();
  });

  it('shows why a save failed', async () => {
    api.setToolGrant.mockRejectedValue({ code: 'settings', message: 'settings.json line 3: bad' });
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    await screen.findByTestId('mcp-server');
    await fireEvent.click(screen.getAllByTestId('grant-deny')[0]!);
    expect(await screen.findByRole('alert')).toHaveTextContent('settings.json line 3: bad');
  });
});

describe('GrantsPanel rules', () => {
  const withRules = () =>
    project({
      settings: {
        ...settings,
        rules: { bash: [{ allow: 'git status' }, { deny: 'rm -rf *' }, { ask: 'npm run *' }] },
      },
    });

  beforeEach(() => {
    vi.resetAllMocks();
    api.toolGrants.mockResolvedValue(grants);
    api.networkView.mockResolvedValue(networkView);
    api.mcpStatus.mockResolvedValue([]);
    api.projectInfo.mockResolvedValue(withRules());
    api.setToolRules.mockResolvedValue(grants);
  });

  it('lists each tool\'s rules in order, with what they do', async () => {
    render(GrantsPanel, { props: { info: withRules(), onchange: () => {} } });
    const rows = await screen.findAllByTestId('rule-row');
    expect(rows.map((r) => r.textContent?.replace(/\s+/g, ' ').trim().slice(0, 20))).toEqual([
      'allow git status ↑ ↓',
      'deny rm -rf * ↑ ↓ ✕',
      'ask npm run * ↑ ↓ ✕',
    ]);
    expect(within(rows[1]!).getByTestId('rule-up')).toHaveAccessibleName('Move up: deny rm -rf *');
    expect(within(rows[0]!).getByTestId('rule-up')).toBeDisabled();
    expect(within(rows[2]!).getByTestId('rule-down')).toBeDisabled();
  });

  it('reorders, deletes and adds by saving the whole list', async () => {
    const onchange = vi.fn();
    render(GrantsPanel, { props: { info: withRules(), onchange } });
    const rows = await screen.findAllByTestId('rule-row');
    await fireEvent.click(within(rows[2]!).getByTestId('rule-up'));
    await fireEvent.click(within(rows[0]!).getByTestId('rule-delete'));
    await fireEvent.input(screen.getByTestId('rule-pattern'), { target: { value: 'cargo test *' } });
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(api.setToolRules.mock.calls).toEqual([
      ['/home/u/proj', 'bash', [{ allow: 'git status' }, { ask: 'npm run *' }, { deny: 'rm -rf *' }]],
      ['/home/u/proj', 'bash', [{ deny: 'rm -rf *' }, { ask: 'npm run *' }]],
      [
        '/home/u/proj',
        'bash',
        [{ allow: 'git status' }, { deny: 'rm -rf *' }, { ask: 'npm run *' }, { allow: 'cargo test *' }],
      ],
    ]);
    await vi.waitFor(() => expect(onchange).toHaveBeenCalled());
  });

  it('shows a refused rule\'s error', async () => {
    api.setToolRules.mockRejectedValue({ code: 'invalid', message: 'rules.bash[3]: the pattern is empty' });
    render(GrantsPanel, { props: { info: withRules(), onchange: () => {} } });
    await screen.findAllByTestId('rule-row');
    await fireEvent.input(screen.getByTestId('rule-pattern'), { target: { value: 'x' } });
    await fireEvent.click(screen.getByTestId('rule-add'));
    expect(await screen.findByRole('alert')).toHaveTextContent('rules.bash[3]: the pattern is empty');
  });

  it('tests a call without running it', async () => {
    api.explainCall.mockResolvedValue({
      tool: 'bash',
      decision: 'deny',
      why: 'denied by rules.bash[1] "rm -rf *" for "rm -rf x"',
      byRule: true,
      proposedRules: [],
      hooks: ['project · pre_tool_use · bash · ./check.sh'],
    });
    render(GrantsPanel, { props: { info: withRules(), onchange: () => {} } });
    await screen.findAllByTestId('rule-row');
    await fireEvent.input(screen.getByTestId('test-call'), { target: { value: 'git status && rm -rf x' } });
    await fireEvent.click(screen.getByTestId('test-run'));
    const result = await screen.findByTestId('test-result');
    expect(result).toHaveAttribute('data-decision', 'deny');
    expect(result).toHaveTextContent('Refused: denied by rules.bash[1] "rm -rf *" for "rm -rf x"');
    expect(api.explainCall).toHaveBeenCalledWith('/home/u/proj', 'bash', 'git status && rm -rf x');
    expect(screen.getByTestId('test-hooks')).toHaveTextContent('project · pre_tool_use · bash · ./check.sh');
  });

  it('lists the hooks with their source, and marks one that waits for trust', async () => {
    const hook = (source: string, title: string, waiting: boolean, fail_closed = false): HookInfo => ({
      source,
      point: 'pre_tool_use',
      title,
      command: title.split(' · ').at(-1)!,
      timeout_secs: 60,
      fail_closed,
      waiting,
      digest: title,
    });
    api.hookList.mockResolvedValue([
      hook('yours', 'pre_tool_use · Bash · ~/bin/audit.sh', false, true),
      hook('project', 'pre_tool_use · bash(git push *) · ./no-push.sh', true),
    ]);
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    const items = await screen.findAllByTestId('hook-item');
    expect(items.map((i) => [i.dataset.source, i.dataset.waiting])).toEqual([
      ['yours', 'false'],
      ['project', 'true'],
    ]);
    expect(items[0]).toHaveTextContent('fail-closed');
    expect(items[1]).toHaveTextContent('waits for trust');
    expect(api.hookList).toHaveBeenCalledWith('/home/u/proj');
  });

  it('says where hooks go when there are none', async () => {
    api.hookList.mockResolvedValue([]);
    render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    expect(await screen.findByTestId('hooks-empty')).toHaveTextContent('hooks.json');
  });
});

describe('GrantRow keyboard', () => {
  it('is a radio group with one tab stop whose arrows change the grant', async () => {
    const onset = vi.fn();
    render(GrantRow, { props: { tool: grants[1]!, override: 'ask', onset } });
    const group = screen.getByRole('radiogroup', { name: 'Grant for bash' });
    const radios = within(group).getAllByRole('radio');
    expect(radios.map((r) => r.tabIndex)).toEqual([-1, 0, -1, -1]);
    expect(radios[0]).toHaveAccessibleName('Allow bash: runs without asking');
    await fireEvent.keyDown(group, { key: 'ArrowRight' });
    await fireEvent.keyDown(group, { key: 'ArrowLeft' });
    expect(onset.mock.calls).toEqual([['deny'], ['allow']]);
  });
});
