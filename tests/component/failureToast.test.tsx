import { Button } from '@mantine/core';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { api } from '../../web/src/app/api.ts';
import { useWrite } from '../../web/src/app/queries.ts';
import { fakeApi, renderConsole, requestsOf } from './render.tsx';

/** One change through the console's mutation helper, as a screen makes it. */
function OpenDoor({ silent = false, onSuccess }: { silent?: boolean; onSuccess?: () => void }) {
  const open = useWrite(() => api.post('/v1/devices/gate/commands', { type: 'openDoor' }, { silent }), { success: 'Open-door command sent', onSuccess });
  return (
    <Button loading={open.isPending} onClick={() => open.mutate()}>
      Open door
    </Button>
  );
}

/** The texts of the toasts on screen (one at a time). */
const toasts = () => screen.queryAllByRole('alert').map((toast) => toast.textContent);

describe('a toast on failure', () => {
  it('shows why a change was refused, once, in the red toast', async () => {
    const fetch = fakeApi({ 'POST /v1/devices/gate/commands': [{ status: 409, code: 409, message: 'The device is offline' }] });
    const onSuccess = vi.fn();
    const { user } = renderConsole(<OpenDoor onSuccess={onSuccess} />);
    await user.click(screen.getByRole('button', { name: 'Open door' }));
    await waitFor(() => expect(toasts()).toEqual(['The device is offline']));
    expect(requestsOf(fetch)).toEqual(['POST /v1/devices/gate/commands']);
    expect(onSuccess).not.toHaveBeenCalled();
  });

  it('shows the refusal of a request the screen asked to keep quiet, since the screen left it to the helper', async () => {
    fakeApi({
      'POST /v1/devices/gate/commands': [
        { status: 422, code: 422, message: 'Some fields are not valid', data: { issues: [{ path: 'type', message: 'Not a command' }] } },
      ],
    });
    const { user } = renderConsole(<OpenDoor silent />);
    await user.click(screen.getByRole('button', { name: 'Open door' }));
    await waitFor(() => expect(toasts()).toEqual(['Not a command']));
  });

  it('says a change went through in the green toast instead', async () => {
    fakeApi({ 'POST /v1/devices/gate/commands': [{ data: { commandKey: 'c1' } }] });
    const onSuccess = vi.fn();
    const { user } = renderConsole(<OpenDoor onSuccess={onSuccess} />);
    await user.click(screen.getByRole('button', { name: 'Open door' }));
    await waitFor(() => expect(toasts()).toEqual(['Open-door command sent']));
    expect(onSuccess).toHaveBeenCalledTimes(1);
  });
});
