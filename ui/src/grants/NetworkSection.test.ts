import { fireEvent, render, screen, within } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { NetworkPresetInfo, NetworkSettings, NetworkView } from '../lib/bindings';
import { project } from '../test/project';
import GrantsPanel from './GrantsPanel.svelte';
import NetworkSection from './NetworkSection.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

const presets: NetworkPresetInfo[] = [
  { preset: 'npm', description: 'npm and yarn registries', hosts: ['registry.npmjs.org:443', 'registry.yarnpkg.com:443'] },
  { preset: 'crates', description: 'crates.io, its index and downloads; rustup', hosts: ['crates.io:443'] },
  { preset: 'github', description: 'GitHub: clones, the API, release and raw downloads', hosts: ['github.com:443'] },
];

const written = (over: Partial<NetworkSettings> = {}): NetworkSettings => ({
  allow: ['docs.rs', 'unknown.test:80'],
  ask: [],
  deny: ['tracker.example.com'],
  presets: ['npm'],
  ...over,
});

const view = (over: Partial<NetworkView> = {}): NetworkView => ({
  written: written(),
  waiting: [],
  bash: 'allow_list',
  presets,
  ...over,
});

const list = (name: string) => screen.getAllByTestId('network-list').find((l) => l.dataset.list === name)!;
const preset = (name: string) => screen.getAllByTestId('network-preset').find((p) => p.dataset.preset === name)!;
const mount = (props: Partial<{ proposed: string; onsaved: () => void }> = {}) =>
  render(NetworkSection, { props: { project: '/p', ...props } });

describe('NetworkSection', () => {
  beforeEach(() => {
    vi.resetAllMocks();
    api.networkView.mockResolvedValue(view());
  });

  it("says what bash's network is", async () => {
    mount();
    const bash = await screen.findByTestId('network-bash');
    expect(bash).toHaveAttribute('data-bash', 'allow_list');
    expect(bash).toHaveTextContent("Allow-list through Paddock’s proxy (3 rules, preset npm)");
    expect(api.networkView).toHaveBeenCalledWith('/p');
  });

  it.each([
    ['none', 'No network'],
    ['whole', 'Whole network (bashNetwork)'],
  ] as const)('says %s plainly', async (bash, text) => {
    api.networkView.mockResolvedValue(view({ bash }));
    mount();
    expect(await screen.findByTestId('network-bash')).toHaveTextContent(text);
  });

  it('lists each rule in its own list, marks what waits for trust, and shows the presets with their hosts', async () => {
    api.networkView.mockResolvedValue(view({ waiting: ['unknown.test:80', 'preset npm'] }));
    mount();
    await screen.findByTestId('network-bash');
    const rules = (name: string) => within(list(name)).queryAllByTestId('network-rule').map((r) => r.dataset.rule);
    expect(rules('allow')).toEqual(['docs.rs', 'unknown.test:80']);
    expect(rules('ask')).toEqual([]);
    expect(rules('deny')).toEqual(['tracker.example.com']);
    const waits = within(list('allow')).getAllByTestId('network-rule').map((r) => within(r).queryByTestId('network-waiting') !== null);
    expect(waits).toEqual([false, true]);
    expect(within(preset('npm')).getByTestId('network-waiting')).toHaveTextContent('waits for trust');
    expect(within(preset('crates')).queryByTestId('network-waiting')).toBeNull();
    expect(within(preset('npm')).getByRole('checkbox')).toBeChecked();
    expect(within(preset('crates')).getByRole('checkbox')).not.toBeChecked();
    expect(preset('npm')).toHaveTextContent('npm and yarn registries');
    expect(within(preset('npm')).getByTestId('network-preset-hosts')).toHaveTextContent('registry.yarnpkg.com:443');
    expect(within(preset('npm')).getByTestId('network-preset-hosts-toggle')).toHaveTextContent('2 hosts');
    // Named for assistive technology.
    expect(within(list('allow')).getByRole('textbox', { name: 'New allow rule' })).toBeInTheDocument();
    expect(within(list('deny')).getByRole('button', { name: 'Remove tracker.example.com from network.deny' })).toBeInTheDocument();
  });

  it('adds a rule with the field and saves the whole setting; the field empties once saved', async () => {
    const onsaved = vi.fn();
    const next = view({ written: written({ ask: ['api.example.com'] }) });
    api.setNetwork.mockResolvedValue(next);
    mount({ onsaved });
    await screen.findByTestId('network-bash');
    const field = within(list('ask')).getByTestId('network-rule-input');
    await fireEvent.input(field, { target: { value: ' api.example.com ' } });
    await fireEvent.click(within(list('ask')).getByTestId('network-rule-add'));
    await vi.waitFor(() => expect(within(list('ask')).getAllByTestId('network-rule')).toHaveLength(1));
    expect(api.setNetwork).toHaveBeenCalledWith('/p', written({ ask: ['api.example.com'] }));
    expect(field).toHaveValue('');
    expect(onsaved).toHaveBeenCalledTimes(1);
  });

  it('removes a rule with its button', async () => {
    api.setNetwork.mockResolvedValue(view({ written: written({ allow: ['unknown.test:80'] }) }));
    mount();
    await screen.findByTestId('network-bash');
    await fireEvent.click(within(list('allow')).getAllByTestId('network-rule-remove')[0]!);
    expect(api.setNetwork).toHaveBeenCalledWith('/p', written({ allow: ['unknown.test:80'] }));
    await vi.waitFor(() => expect(within(list('allow')).getAllByTestId('network-rule')).toHaveLength(1));
  });

  it('shows a refused rule next to the list it names and keeps what the user typed', async () => {
    api.setNetwork.mockRejectedValue({ code: 'invalid', message: 'network.allow[2]: "exa mple.com" is not a host name' });
    const onsaved = vi.fn();
    mount({ onsaved });
    await screen.findByTestId('network-bash');
    const field = within(list('allow')).getByTestId('network-rule-input');
    await fireEvent.input(field, { target: { value: 'exa mple.com' } });
    await fireEvent.submit(field.closest('form')!);
    const error = await within(list('allow')).findByTestId('network-list-error');
    expect(error).toHaveTextContent('network.allow[2]: "exa mple.com" is not a host name');
    expect(error).toHaveAttribute('role', 'alert');
    expect(field).toHaveValue('exa mple.com');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(field).toHaveAccessibleDescription('network.allow[2]: "exa mple.com" is not a host name');
    expect(within(list('allow')).getAllByTestId('network-rule')).toHaveLength(2);
    expect(within(list('deny')).queryByTestId('network-list-error')).toBeNull();
    expect(onsaved).not.toHaveBeenCalled();
  });

  it('puts an error that names another list beside that list', async () => {
    api.setNetwork.mockRejectedValue({ code: 'invalid', message: 'network.deny[0]: "*.*" is not a host rule' });
    mount();
    await screen.findByTestId('network-bash');
    await fireEvent.input(within(list('ask')).getByTestId('network-rule-input'), { target: { value: 'x.example' } });
    await fireEvent.click(within(list('ask')).getByTestId('network-rule-add'));
    expect(await within(list('deny')).findByTestId('network-list-error')).toHaveTextContent('network.deny[0]');
    expect(within(list('ask')).getByTestId('network-rule-input')).toHaveValue('x.example');
  });

  it('ticks a preset, in the order presets are offered', async () => {
    api.setNetwork.mockResolvedValue(view({ written: written({ presets: ['npm', 'github'] }) }));
    mount();
    await screen.findByTestId('network-bash');
    await fireEvent.click(within(preset('github')).getByRole('checkbox'));
    expect(api.setNetwork).toHaveBeenCalledWith('/p', written({ presets: ['npm', 'github'] }));
    await fireEvent.click(within(preset('npm')).getByRole('checkbox'));
    expect(api.setNetwork).toHaveBeenLastCalledWith('/p', written({ presets: ['github'] }));
  });

  it('puts a preset box back when its save failed, saying why', async () => {
    api.setNetwork.mockRejectedValue({ code: 'settings', message: 'settings.json line 3: bad' });
    mount();
    await screen.findByTestId('network-bash');
    const box = within(preset('crates')).getByRole('checkbox');
    await fireEvent.click(box);
    expect(await within(screen.getByTestId('network-presets')).findByRole('alert')).toHaveTextContent('settings.json line 3: bad');
    expect(box).not.toBeChecked();
  });

  it('offers the host a refused connection asked to allow, in the allow field, unsaved', async () => {
    mount({ proposed: 'evil.example:443' });
    await screen.findByTestId('network-bash');
    const field = within(list('allow')).getByTestId('network-rule-input');
    await vi.waitFor(() => expect(field).toHaveValue('evil.example:443'));
    await vi.waitFor(() => expect(document.activeElement).toBe(field));
    expect(api.setNetwork).not.toHaveBeenCalled();
  });

  it('takes a view whose empty lists the shell left out (as the settings file does)', async () => {
    api.networkView.mockResolvedValue({ ...view(), written: { allow: ['docs.rs'] } } as unknown as NetworkView);
    api.setNetwork.mockResolvedValue({ ...view(), written: { allow: ['docs.rs'], deny: ['x.example'] } } as unknown as NetworkView);
    mount();
    expect(await screen.findByTestId('network-bash')).toHaveTextContent('(1 rule)');
    expect(within(list('allow')).getAllByTestId('network-rule')).toHaveLength(1);
    expect(within(preset('npm')).getByRole('checkbox')).not.toBeChecked();
    await fireEvent.input(within(list('deny')).getByTestId('network-rule-input'), { target: { value: 'x.example' } });
    await fireEvent.click(within(list('deny')).getByTestId('network-rule-add'));
    expect(api.setNetwork).toHaveBeenCalledWith('/p', { allow: ['docs.rs'], ask: [], deny: ['x.example'], presets: [] });
    await vi.waitFor(() => expect(within(list('deny')).getAllByTestId('network-rule')).toHaveLength(1));
  });

  it('says why the view could not be read', async () => {
    api.networkView.mockRejectedValue({ code: 'settings', message: 'settings.json line 3: bad' });
    mount();
    expect(await screen.findByTestId('network-error')).toHaveTextContent('settings.json line 3: bad');
  });
});

describe('GrantsPanel network', () => {
  beforeEach(() => {
    vi.resetAllMocks();
    api.toolGrants.mockResolvedValue([]);
    api.mcpStatus.mockResolvedValue([]);
    api.networkView.mockResolvedValue(view());
    api.projectInfo.mockResolvedValue(project());
  });

  it('shows the Network section and reloads the project after a network save', async () => {
    const onchange = vi.fn();
    api.setNetwork.mockResolvedValue(view({ written: written({ deny: [] }) }));
    render(GrantsPanel, { props: { info: project(), onchange } });
    await screen.findByTestId('network-bash');
    await fireEvent.click(within(list('deny')).getByTestId('network-rule-remove'));
    await vi.waitFor(() => expect(onchange).toHaveBeenCalled());
    expect(api.projectInfo).toHaveBeenCalledWith('/home/u/proj');
  });

  it("reads the network again when bash's whole-network switch changes", async () => {
    const { rerender } = render(GrantsPanel, { props: { info: project(), onchange: () => {} } });
    await screen.findByTestId('network-bash');
    expect(api.networkView).toHaveBeenCalledTimes(1);
    api.networkView.mockResolvedValue(view({ bash: 'whole' }));
    await rerender({ info: project({ settings: { ...project().settings!, bashNetwork: true } }), onchange: () => {} });
    await vi.waitFor(() => expect(screen.getByTestId('network-bash')).toHaveAttribute('data-bash', 'whole'));
  });
});
