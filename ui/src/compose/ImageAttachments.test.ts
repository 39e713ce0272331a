import { fireEvent, render, screen } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import ImageAttachments from './ImageAttachments.svelte';
import { ImageTray, imageAttachments } from './images.svelte';

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function transfer(files: File[]): DataTransfer {
  return {
    items: files.map((f) => ({ kind: 'file', getAsFile: () => f })),
    files,
  } as unknown as DataTransfer;
}

describe('images in the composer', () => {
  it('takes a pasted image as a thumbnail and an image attachment', async () => {
    const tray = new ImageTray();
    render(ImageAttachments, { props: { tray } });
    const file = new File([PNG], 'shot.png', { type: 'image/png' });
    const event = { clipboardData: transfer([file]), preventDefault: () => {} } as unknown as ClipboardEvent;
    await tray.fromTransfer(event);
    await vi_wait(() => screen.getAllByTestId('image-thumb').length === 1);
    const [a] = imageAttachments(tray.take());
    expect(a).toMatchObject({ kind: 'image', media_type: 'image/png', name: 'shot.png', data: btoa(String.fromCharCode(...PNG)) });
  });

  it('takes a dropped image and removes it with the keyboard', async () => {
    const tray = new ImageTray();
    render(ImageAttachments, { props: { tray } });
    const file = new File([PNG], 'drop.png', { type: 'image/png' });
    await tray.fromTransfer({ dataTransfer: transfer([file]), preventDefault: () => {} } as unknown as DragEvent);
    await vi_wait(() => screen.queryAllByTestId('image-thumb').length === 1);
    const remove = screen.getByRole('button', { name: 'Remove drop.png' });
    remove.focus();
    await fireEvent.keyDown(remove, { key: 'Enter' });
    await fireEvent.click(remove);
    await vi_wait(() => screen.queryAllByTestId('image-thumb').length === 0);
    expect(tray.take()).toEqual([]);
  });

  it('gets back the images of a send that failed, before those added since', async () => {
    const tray = new ImageTray();
    render(ImageAttachments, { props: { tray } });
    await tray.add([new File([PNG], 'a.png', { type: 'image/png' })]);
    const taken = tray.take();
    expect(tray.items).toEqual([]);
    await tray.add([new File([PNG], 'b.png', { type: 'image/png' })]);
    tray.putBack(taken);
    tray.putBack(taken);
    expect(tray.items.map((i) => i.name)).toEqual(['a.png', 'b.png']);
    await vi_wait(() => screen.queryAllByTestId('image-thumb').length === 2);
  });

  it('says why another type or an oversized file is refused', async () => {
    const tray = new ImageTray();
    render(ImageAttachments, { props: { tray } });
    await tray.add([new File(['x'], 'notes.txt', { type: 'text/plain' })]);
    expect((await screen.findByTestId('image-error')).textContent).toContain('notes.txt is not a PNG');
    const big = new File([PNG], 'big.png', { type: 'image/png' });
    Object.defineProperty(big, 'size', { value: 21 * 1024 * 1024 });
    await tray.add([big]);
    await vi_wait(() => (screen.queryByTestId('image-error')?.textContent ?? '').includes('over 20 MB'));
    expect(tray.items).toEqual([]);
  });
});

async function vi_wait(ok: () => boolean) {
  const { vi } = await import('vitest');
  await vi.waitFor(() => expect(ok()).toBe(true));
}
