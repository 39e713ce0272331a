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

  it('switches areas', async () => {
    render(ProjectWindow, { props: { path: '/home/u/proj' } });
    await vi.waitFor(() => expect(document.title).toBe('proj — Paddock'));
    await fireEvent.click(screen.getByTestId('tab-sandbox'));
    expect(screen.getByTestId('sandbox-status')).toBeInTheDocument();
    await fireEvent.click(screen.getByTestId('tab-grants'));
    expect(screen.getByTestId('preset-select')).toBeInTheDocument();
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
