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
    expect(status).toHaveTextContent('Landlock ABI 6; network isolated (namespace)');
    expect(screen.getByText(/Landlock \(ABI 6\)/)).toBeInTheDocument();
  });

  it('says what is missing when bash is not confined', () => {
    const info = project({
      sandbox: {
        ...sandbox,
        filesystem: { state: 'unavailable', reason: 'Landlock is not enabled in this kernel' },
        network: { state: 'disabled' },
        writable_roots: [],
        fully_confined: false,
        bash_runs: false,
        summary: 'no confinement',
      },
    });
    render(SandboxPanel, { props: { info, onchange: () => {} } });
    expect(screen.getByTestId('sandbox-status')).toHaveAttribute('data-fully-confined', 'false');
    expect(screen.getByText(/Landlock is not enabled in this kernel/)).toBeInTheDocument();
    expect(screen.getByText(/withheld from the agent/)).toBeInTheDocument();
  });
});
