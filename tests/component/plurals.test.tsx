import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { BatchSettingsModal } from '../../web/src/features/devices/BatchSettingsModal.tsx';
import { fakeApi, renderConsole, requestsOf } from './render.tsx';

/** The batch configuration of face terminals counts devices and settings in English's two forms. */
const renderBatch = (deviceKeys: string[]) => renderConsole(<BatchSettingsModal deviceKeys={deviceKeys} opened onClose={() => undefined} />);

describe('plural messages', () => {
  it('speaks of one device, and of one setting then of two', async () => {
    const { user } = renderBatch(['gate']);
    expect(screen.getByTestId('batch-apply').textContent).toBe('Apply to 1 device');
    expect(screen.getByText('Tick the settings to apply to the selected device; the others stay as they are.')).toBeTruthy();
    expect(screen.getByText('0 settings chosen')).toBeTruthy();

    await user.click(screen.getByTestId('include-temperatureAlarm'));
    expect(screen.getByText('1 setting chosen')).toBeTruthy();
    await user.click(screen.getByTestId('include-fan'));
    expect(screen.getByText('2 settings chosen')).toBeTruthy();
  });

  it('speaks of several devices, and says in the toast to how many the settings went', async () => {
    const fetch = fakeApi({ 'POST /v1/devices/batchSettings': [{ data: { updated: 3 } }] });
    const { user } = renderBatch(['gate', 'lobby', 'garage']);
    expect(screen.getByTestId('batch-apply').textContent).toBe('Apply to 3 devices');
    expect(screen.getByText('Tick the settings to apply to the 3 selected devices; the others stay as they are on each device.')).toBeTruthy();

    await user.click(screen.getByTestId('include-fan'));
    await user.click(screen.getByTestId('batch-apply'));
    await waitFor(() => expect(screen.queryAllByRole('alert').map((toast) => toast.textContent)).toEqual(['Settings sent to 3 devices']));
    expect(requestsOf(fetch)).toEqual(['POST /v1/devices/batchSettings']);
  });

  it('says when the settings went to a single device', async () => {
    fakeApi({ 'POST /v1/devices/batchSettings': [{ data: { updated: 1 } }] });
    const { user } = renderBatch(['gate', 'lobby']);
    await user.click(screen.getByTestId('include-fan'));
    await user.click(screen.getByTestId('batch-apply'));
    await waitFor(() => expect(screen.queryAllByRole('alert').map((toast) => toast.textContent)).toEqual(['Settings sent to 1 device']));
  });
});
