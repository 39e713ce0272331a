import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it, vi } from 'vitest';
import type { AboutInfo, SandboxEngine, UpdateCheck } from '../lib/bindings';
import AboutPanel from './AboutPanel.svelte';

vi.mock('../lib/updates', () => ({
  about: vi.fn(),
  checkUpdate: vi.fn(),
  installUpdate: vi.fn(),
  restartApp: vi.fn(),
}));
const updates = vi.mocked(await import('../lib/updates'));

const bwrap: SandboxEngine = { engine: 'bubblewrap', version: '0.8.0' };
const appimage: AboutInfo = { version: '0.1.0', install: 'app_image', location: '/home/u/Paddock.AppImage' };

function offer(over: Partial<Extract<UpdateCheck, { state: 'available' }>> = {}): UpdateCheck {
  return {
    state: 'available',
    version: '0.2.0',
    current: '0.1.0',
    notes: 'Faster diffs.',
    can_install: true,
    how: '',
    ...over,
  };
}

describe('AboutPanel', () => {
  it('shows the version and how this copy was installed', async () => {
    updates.about.mockResolvedValue({ ...appimage, install: 'deb', location: '/usr/bin/paddock-desktop' });
    render(AboutPanel, { props: { engine: bwrap } });
    expect(await screen.findByTestId('about-version')).toHaveTextContent('Paddock 0.1.0');
    expect(screen.getByTestId('about-install')).toHaveTextContent('.deb package');
    expect(screen.queryByTestId('appimage-wall')).toBeNull();
  });

  it('says which wall an AppImage got where bubblewrap is missing', async () => {
    updates.about.mockResolvedValue(appimage);
    render(AboutPanel, { props: { engine: { engine: 'namespaces' } } });
    const note = await screen.findByTestId('appimage-wall');
    expect(note).toHaveTextContent("bash runs behind Paddock's own namespaces");
    expect(note).toHaveTextContent('apt install bubblewrap');
  });

  it('offers a newer version with what changed, and installs it only when asked', async () => {
    updates.about.mockResolvedValue(appimage);
    updates.checkUpdate.mockResolvedValue(offer());
    updates.installUpdate.mockResolvedValue('Paddock 0.2.0 is installed: restart Paddock to use it.');
    render(AboutPanel, { props: { engine: bwrap } });
    await fireEvent.click(await screen.findByTestId('update-check'));
    expect(await screen.findByTestId('update-notes')).toHaveTextContent('Faster diffs.');
    expect(updates.installUpdate).not.toHaveBeenCalled();
    await fireEvent.click(screen.getByTestId('update-install'));
    expect(await screen.findByTestId('update-installed')).toHaveTextContent('restart Paddock');
  });

  it('waits for a live run, and leaves a package install to the package manager', async () => {
    updates.about.mockResolvedValue(appimage);
    updates.checkUpdate.mockResolvedValue(offer({ blocked: 'A run is live' }));
    render(AboutPanel, { props: { engine: bwrap } });
    await fireEvent.click(await screen.findByTestId('update-check'));
    expect(await screen.findByTestId('update-install')).toBeDisabled();

    updates.checkUpdate.mockResolvedValue(offer({ can_install: false, how: 'sudo apt install ./Paddock_0.2.0_amd64.deb' }));
    await fireEvent.click(screen.getByTestId('update-check'));
    expect(await screen.findByTestId('update-how')).toHaveTextContent('apt install');
    expect(screen.queryByTestId('update-install')).toBeNull();
  });

  it('says why an older version or a bad signature is refused', async () => {
    updates.about.mockResolvedValue(appimage);
    updates.checkUpdate.mockResolvedValue({ state: 'older', offered: '0.0.9', current: '0.1.0' });
    render(AboutPanel, { props: { engine: bwrap } });
    await fireEvent.click(await screen.findByTestId('update-check'));
    expect(await screen.findByTestId('update-status')).toHaveTextContent('never goes back');

    updates.checkUpdate.mockResolvedValue(offer());
    updates.installUpdate.mockRejectedValue({ code: 'invalid', message: 'signed with another key' });
    await fireEvent.click(screen.getByTestId('update-check'));
    await fireEvent.click(await screen.findByTestId('update-install'));
    expect(await screen.findByTestId('update-error')).toHaveTextContent('signed with another key');
  });
});
