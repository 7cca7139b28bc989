import { Button } from '@mantine/core';
import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { confirmAction, confirmDiscard } from '../../web/src/features/confirm.tsx';
import { renderConsole } from './render.tsx';

/** A button that asks before deleting the gate. */
function DeleteGate({ onConfirm }: { onConfirm: () => void }) {
  return (
    <Button
      onClick={() =>
        confirmAction({
          title: 'Delete device',
          text: 'Delete Front gate? This cannot be undone.',
          confirm: 'Delete',
          color: 'red',
          testId: 'delete',
          onConfirm,
        })
      }
    >
      Delete Front gate
    </Button>
  );
}

describe('a confirmation dialog', () => {
  it('names what is at stake, and Cancel changes nothing', async () => {
    const onConfirm = vi.fn();
    const { user } = renderConsole(<DeleteGate onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete Front gate' }));

    const dialog = await screen.findByRole('dialog', { name: 'Delete device' });
    expect(dialog.textContent).toContain('Delete Front gate? This cannot be undone.');
    await user.click(within(dialog).getByTestId('cancel-delete'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(onConfirm).not.toHaveBeenCalled();
  });

  it('runs the change once it is confirmed, and closes', async () => {
    const onConfirm = vi.fn();
    const { user } = renderConsole(<DeleteGate onConfirm={onConfirm} />);
    await user.click(screen.getByRole('button', { name: 'Delete Front gate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete device' });
    const confirm = within(dialog).getByTestId('confirm-delete');
    expect(confirm.textContent).toBe('Delete');
    await user.click(confirm);
    expect(onConfirm).toHaveBeenCalledTimes(1);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('leaves an untouched form at once, and asks before dropping changes', async () => {
    const leave = vi.fn();
    const { user } = renderConsole(
      <>
        <Button onClick={() => confirmDiscard(false, leave)}>Back, untouched</Button>
        <Button onClick={() => confirmDiscard(true, leave)}>Back, edited</Button>
      </>,
    );
    await user.click(screen.getByRole('button', { name: 'Back, untouched' }));
    expect(leave).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('dialog')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Back, edited' }));
    const dialog = await screen.findByRole('dialog', { name: 'Discard changes' });
    expect(dialog.textContent).toContain('Leave this page without saving?');
    expect(leave).toHaveBeenCalledTimes(1);
    await user.click(within(dialog).getByTestId('confirm-discard'));
    expect(leave).toHaveBeenCalledTimes(2);
  });
});
