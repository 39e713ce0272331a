import { render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import { project, sandbox } from '../test/project';
import SandboxPanel from './SandboxPanel.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));

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
  });
});
