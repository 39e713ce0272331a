import { render, screen } from '@testing-library/svelte';
import userEvent from '@testing-library/user-event';
import { createRawSnippet } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import Dialog from './Dialog.svelte';

const html = (markup: string) => createRawSnippet(() => ({ render: () => markup }));
const body = html('<div><button>First</button><button disabled>Off</button><input aria-label="Middle" /></div>');
const footer = html('<div><button>Last</button></div>');

function show(props: { onclose?: () => void; dismissible?: boolean; children?: ReturnType<typeof html> } = {}) {
  const onclose = props.onclose ?? vi.fn();
  const view = render(Dialog, {
    props: { title: 'Settings', onclose, children: body, footer, 'data-testid': 'the-dialog', ...props },
  });
  return { ...view, onclose, dialog: screen.getByTestId('the-dialog') };
}

describe('Dialog', () => {
  it('is a modal named by its title, with the focus moved in', () => {
    const { dialog } = show();
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBe(dialog);
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(dialog).toHaveFocus();
  });

  it('starts the focus on the element marked data-autofocus', () => {
    show({ children: html('<div><button>One</button><button data-autofocus>Safe</button></div>') });
    expect(screen.getByRole('button', { name: 'Safe' })).toHaveFocus();
  });

  it('keeps the focus inside: Tab and Shift+Tab go round, skipping what is disabled', async () => {
    const user = userEvent.setup();
    show();
    const [first, middle, last] = [
      screen.getByRole('button', { name: 'First' }),
      screen.getByRole('textbox', { name: 'Middle' }),
      screen.getByRole('button', { name: 'Last' }),
    ];
    await user.tab({ shift: true });
    expect(last).toHaveFocus();
    await user.tab();
    expect(first).toHaveFocus();
    await user.tab();
    expect(middle).toHaveFocus();
    await user.tab();
    expect(last).toHaveFocus();
    await user.tab();
    expect(first).toHaveFocus();
    await user.tab({ shift: true });
    expect(last).toHaveFocus();
  });

  it('brings a focus that got out back in on Tab', async () => {
    const user = userEvent.setup();
    const before = document.body.insertBefore(document.createElement('button'), document.body.firstChild);
    const after = document.body.appendChild(document.createElement('button'));
    show();
    before.focus();
    await user.tab({ shift: true });
    expect(screen.getByRole('button', { name: 'Last' })).toHaveFocus();
    after.focus();
    await user.tab();
    expect(screen.getByRole('button', { name: 'First' })).toHaveFocus();
    before.remove();
    after.remove();
  });

  it('closes on Escape', async () => {
    const user = userEvent.setup();
    const { onclose } = show();
    await user.keyboard('{Escape}');
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('does not close on Escape when it cannot be dismissed', async () => {
    const user = userEvent.setup();
    const { onclose, rerender } = show({ dismissible: false });
    await user.keyboard('{Escape}');
    expect(onclose).not.toHaveBeenCalled();
    await rerender({ dismissible: true });
    await user.keyboard('{Escape}');
    expect(onclose).toHaveBeenCalledTimes(1);
  });

  it('gives the focus back to what had it when it closes', () => {
    const opener = document.body.appendChild(document.createElement('button'));
    opener.focus();
    const { unmount, dialog } = show();
    expect(dialog).toHaveFocus();
    unmount();
    expect(opener).toHaveFocus();
    opener.remove();
  });

  it('answers Escape only in the innermost of two', async () => {
    const user = userEvent.setup();
    const outer = vi.fn();
    const inner = vi.fn();
    render(Dialog, { props: { title: 'Outer', onclose: outer, children: body } });
    render(Dialog, { props: { title: 'Inner', onclose: inner, children: body } });
    await user.keyboard('{Escape}');
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).not.toHaveBeenCalled();
  });
});
