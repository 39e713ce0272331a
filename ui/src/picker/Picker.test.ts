import { fireEvent, render, screen } from '@testing-library/svelte';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { project } from '../test/project';
import Picker from './Picker.svelte';

vi.mock('../lib/api', () => import('../test/api-mock'));
const api = vi.mocked(await import('../lib/api'));

beforeEach(() => {
  vi.resetAllMocks();
  api.recentProjects.mockResolvedValue([
    { path: '/home/u/a', name: 'a', last_opened: '2025-01-02T10:00:00Z', exists: true },
    { path: '/home/u/gone', name: 'gone', last_opened: '2025-01-01T10:00:00Z', exists: false },
  ]);
  api.openProject.mockResolvedValue(project());
});

describe('Picker', () => {
  it('lists recent projects and opens one', async () => {
    render(Picker);
    const entries = await screen.findAllByTestId('recent-project');
    expect(entries.map((e) => e.dataset.path)).toEqual(['/home/u/a', '/home/u/gone']);
    expect(entries[1]).toBeDisabled();
    await fireEvent.click(entries[0]!);
    expect(api.openProject).toHaveBeenCalledWith('/home/u/a');
  });

  it('opens a typed path', async () => {
    render(Picker);
    await fireEvent.input(screen.getByTestId('project-path-input'), { target: { value: ' /srv/x ' } });
    await fireEvent.click(screen.getByTestId('open-path-button'));
    expect(api.openProject).toHaveBeenCalledWith('/srv/x');
  });

  it('opens the folder chosen in the native dialog, and nothing when cancelled', async () => {
    api.pickProjectFolder.mockResolvedValueOnce('/chosen').mockResolvedValueOnce(null);
    render(Picker);
    await fireEvent.click(screen.getByTestId('pick-folder-button'));
    await vi.waitFor(() => expect(api.openProject).toHaveBeenCalledWith('/chosen'));
    await fireEvent.click(screen.getByTestId('pick-folder-button'));
    expect(api.openProject).toHaveBeenCalledTimes(1);
  });

  it('shows why a folder could not be opened', async () => {
    api.openProject.mockRejectedValue({ code: 'not_found', message: 'No folder /nope.' });
    render(Picker);
    await fireEvent.input(screen.getByTestId('project-path-input'), { target: { value: '/nope' } });
    await fireEvent.click(screen.getByTestId('open-path-button'));
    expect(await screen.findByRole('alert')).toHaveTextContent('No folder /nope.');
  });
});
