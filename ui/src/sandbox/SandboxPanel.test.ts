import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { project, sandbox, trusted } from '../test/project';
import SandboxPanel from './SandboxPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
vi.mock('../lib/updates', () => ({
  about: vi.fn(async () => ({ version: '0.1.0', install: 'source', location: '/usr/bin/paddock-desktop' })),
  checkUpdate: vi.fn(),
  installUpdate: vi.fn(),
  restartApp: vi.fn(),
}));
const api = vi.mocked(await import('../lib/api'));

describe('SandboxPanel', () => {
  it('shows full confinement', () => {
    render(SandboxPanel, { props: { info: project(), onchange: () => {} } });
    const status = screen.getByTestId('sandbox-status');
    expect(status).toHaveAttribute('data-fully-confined', 'true');
    expect(status).toHaveTextContent('bubblewrap 0.8.0: every protection enforced');
    expect(screen.getByTestId('sandbox-engine')).toHaveTextContent('bubblewrap 0.8.0');
    const rows = screen.getAllByTestId('sandbox-protection');
    expect(rows.map((r) => r.dataset.kind)).toEqual(['writes', 'secrets', 'sockets', 'network', 'lifetime', 'terminal']);
    expect(rows.every((r) => r.dataset.state === 'enforced')).toBe(true);
  });

  it('says what is missing when bash is not confined', () => {
    const info = project({
      sandbox: {
        ...sandbox,
        engine: { engine: 'none', reason: 'Landlock is not enabled in this kernel' },
        protections: [
          { kind: 'secrets', state: 'absent', detail: 'bash can read your files', fix: 'install bubblewrap' },
        ],
        writable_roots: [],
        readable_roots: [],
        fully_confined: false,
        bash_runs: false,
        summary: 'no confinement',
      },
    });
    render(SandboxPanel, { props: { info, onchange: () => {} } });
    expect(screen.getByTestId('sandbox-status')).toHaveAttribute('data-fully-confined', 'false');
    expect(screen.getByText(/Landlock is not enabled in this kernel/)).toBeInTheDocument();
    expect(screen.getByTestId('sandbox-protection')).toHaveTextContent('To fix: install bubblewrap');
    expect(screen.getByText(/withheld from the agent/)).toBeInTheDocument();
    expect(screen.getByTestId('sandbox-readable')).toHaveTextContent('bash can read your files');
  });

  it('says which engines work here, and for the others why not and the fix', () => {
    const info = project({
      sandbox: {
        ...sandbox,
        engine: { engine: 'namespaces' },
        engines: [
          {
            engine: 'bubblewrap',
            works: false,
            why: 'bubblewrap cannot run here (setting up uid map: Permission denied)',
            fix: 'install the distribution profile for it (apparmor-profiles)',
          },
          { engine: 'namespaces', works: true, why: '' },
          { engine: 'landlock', works: true, why: '' },
        ],
      },
    });
    render(SandboxPanel, { props: { info, onchange: () => {} } });
    const rows = screen.getAllByTestId('sandbox-engine-check');
    expect(rows.map((r) => [r.dataset.engine, r.dataset.works])).toEqual([
      ['bubblewrap', 'false'],
      ['namespaces', 'true'],
      ['landlock', 'true'],
    ]);
    expect(rows[0]).toHaveTextContent('not here — bubblewrap cannot run here');
    expect(rows[0]).toHaveTextContent('To fix: install the distribution profile');
    expect(rows[1]).toHaveTextContent("Paddock's own namespaces: works here");
  });

  it('lists what bash may read in the hidden home', () => {
    render(SandboxPanel, { props: { info: project(), onchange: () => {} } });
    const readable = screen.getByTestId('sandbox-readable');
    expect(readable).toHaveTextContent('other people\'s files are hidden');
    expect(readable).toHaveTextContent('/home/u/.cargo');
  });

  it('saves "run bash unconfined" onto the file as it is now (a hand edit stays)', async () => {
    const unconfined = { ...sandbox, fully_confined: false, bash_runs: false, summary: 'no confinement' };
    const info = project({ sandbox: unconfined });
    const edited = { ...info.settings!, maxTurns: 7 };
    api.projectInfo.mockResolvedValue(project({ settings: edited }));
    api.saveSettings.mockResolvedValue(info);
    render(SandboxPanel, { props: { info, onchange: () => {} } });
    await fireEvent.click(screen.getByRole('checkbox', { name: /Run bash even without full confinement/ }));
    await vi.waitFor(() =>
      expect(api.saveSettings).toHaveBeenCalledWith('/home/u/proj', { ...edited, allowUnconfinedBash: true }),
    );
  });

  it('revokes the trust given to the folder, and the screens learn what is pending again', async () => {
    const item = { key: 'baseUrl', what: 'send your API key to http://h/v1', state: { state: 'new' as const } };
    const given = project({ trust: { ...trusted, trusted: [item] } });
    const revoked = project({ trust: { ...trusted, pending: [item] } });
    api.revokeTrust.mockResolvedValue(revoked);
    const onchange = vi.fn();
    const { rerender } = render(SandboxPanel, { props: { info: given, onchange } });
    expect(screen.getByTestId('trust-status')).toHaveTextContent('You trusted 1 of this folder');
    expect(screen.getByTestId('trust-status')).toHaveTextContent('send your API key to http://h/v1');
    await fireEvent.click(screen.getByTestId('trust-revoke'));
    await vi.waitFor(() => expect(onchange).toHaveBeenCalledWith(revoked));
    expect(api.revokeTrust).toHaveBeenCalledWith('/home/u/proj');
    await rerender({ info: revoked, onchange });
    expect(screen.getByTestId('trust-status')).toHaveTextContent('1 of this folder');
    expect(screen.queryByTestId('trust-revoke')).toBeNull();
  });
});
