import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { WebhookForm } from '../../web/src/features/settings/WebhookForm.tsx';
import { fakeApi, renderConsole, requestsOf } from './render.tsx';

/** The subscription form of Settings, Webhooks: its own rules first, then the server's, each on its field. */
function renderForm() {
  const onCreated = vi.fn();
  const rendered = renderConsole(<WebhookForm webhook={null} onClose={() => undefined} onCreated={onCreated} onSaved={() => undefined} />);
  return { ...rendered, onCreated };
}

describe('a form with its rules', () => {
  it('names every broken rule on its field and sends nothing', async () => {
    const fetch = fakeApi();
    const { user } = renderForm();
    await user.click(screen.getByTestId('webhook-submit'));
    expect(await screen.findByText('Enter the address that receives the events')).toBeTruthy();
    expect(screen.getByText('Choose at least one event')).toBeTruthy();
    expect(screen.getByTestId('webhook-url').getAttribute('aria-invalid')).toBe('true');
    expect(requestsOf(fetch)).toEqual([]);
  });

  it('clears a rule once it is kept, and shows what the server refuses on the field it names', async () => {
    const fetch = fakeApi({
      'POST /v1/webhooks': [
        { status: 422, code: 422, message: 'Some fields are not valid', data: { issues: [{ path: 'url', message: 'Use an https address' }] } },
      ],
    });
    const { user, onCreated } = renderForm();
    await user.click(screen.getByTestId('webhook-submit'));
    await user.type(screen.getByTestId('webhook-url'), 'http://example.com/hook');
    await user.click(screen.getByTestId('webhook-events-all'));
    await user.click(screen.getByTestId('webhook-submit'));

    expect(await screen.findByText('Use an https address')).toBeTruthy();
    expect(screen.queryByText('Enter the address that receives the events')).toBeNull();
    expect(screen.queryByText('Choose at least one event')).toBeNull();
    expect(requestsOf(fetch)).toEqual(['POST /v1/webhooks']);
    expect(JSON.parse(String(fetch.mock.calls[0]![1]!.body))).toMatchObject({ url: 'http://example.com/hook', enabled: true });
    // A refusal on a field is the field's: no toast says it again.
    expect(screen.queryByRole('alert')).toBeNull();
    await waitFor(() => expect(onCreated).not.toHaveBeenCalled());
  });
});
