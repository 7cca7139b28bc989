import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEVICE_REASONS } from '@passcloud/functions/contract/protocol';
import { AppError, ConflictError, LoginRequiredError, NotFoundError, PayloadTooLargeError, ThrottledError, fieldError } from '@passcloud/functions/lib/errors';
import { deviceReason } from '@passcloud/functions/lib/http';

/** The reason every refused device answer carries, by the error that refused it. */
describe('device reasons', () => {
  it('name each refusal a terminal acts on', () => {
    expect(deviceReason(fieldError('userCode', 'devices.unknownUserCode'))).toEqual({ reason: 'unknownBindingCode' });
    expect(deviceReason(fieldError('serial', 'devices.serialFormat'))).toEqual({ reason: 'invalid' });
    expect(deviceReason(new ConflictError('devices.noLicence'))).toEqual({ reason: 'noLicence' });
    expect(deviceReason(new ConflictError('devices.noSeat'))).toEqual({ reason: 'noFreeSeat' });
    expect(deviceReason(new ConflictError())).toEqual({ reason: 'conflict' });
    expect(deviceReason(new ThrottledError('code.tooSoon', { seconds: 30 }))).toEqual({ reason: 'throttled', retryAfterSeconds: 30 });
    expect(deviceReason(new ThrottledError('auth.throttled', { minutes: 5, limit: 30 }))).toEqual({ reason: 'throttled', retryAfterSeconds: 300 });
    expect(deviceReason(new LoginRequiredError())).toEqual({ reason: 'unauthorized' });
    expect(deviceReason(new AppError(403, 'status.403', {}, { reason: 'replaced' }))).toEqual({ reason: 'replaced' });
    expect(deviceReason(new AppError(409, 'deviceSync.startAgain', {}, { reason: 'startAgain', cursor: '0' }))).toEqual({ reason: 'startAgain' });
    expect(deviceReason(new NotFoundError())).toEqual({ reason: 'notFound' });
    expect(deviceReason(new PayloadTooLargeError())).toEqual({ reason: 'tooLarge' });
    expect(deviceReason(new Error('boom'))).toEqual({ reason: 'serverError' });
    // A reason that is not one of the list is not passed on.
    expect(deviceReason(new AppError(403, 'status.403', {}, { reason: 'made-up' }))).toEqual({ reason: 'unauthorized' });
  });

  it('are each explained in the device protocol document', () => {
    const doc = readFileSync(resolve(import.meta.dirname, '../../docs/device-protocol.md'), 'utf8');
    for (const reason of DEVICE_REASONS) expect(doc, reason).toMatch(new RegExp(`^\\| \`${reason}\` +\\|`, 'm'));
  });
});
