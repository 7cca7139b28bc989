import { describe, expect, it } from 'vitest';
import { passwordProblem } from '@passcloud/functions/domain/passwords';
import { blockedMinutes, throttleLimit, THROTTLE_WINDOW_MS } from '@passcloud/functions/domain/throttle';
import { secondsUntilResend } from '@passcloud/functions/domain/verification';

describe('passwords', () => {
  it('needs at least 8 characters and accepts up to 64 whole', () => {
    expect(passwordProblem('1234567')).toEqual({ id: 'password.tooShort', params: { min: 8 } });
    expect(passwordProblem('87654321x')).toBeUndefined();
    expect(passwordProblem('x'.repeat(64))).toBeUndefined();
    expect(passwordProblem('x'.repeat(65))).toEqual({ id: 'password.tooLong', params: { max: 64 } });
  });

  it('counts characters, not bytes or UTF-16 units', () => {
    expect(passwordProblem('😀'.repeat(64))).toBeUndefined();
    expect(passwordProblem('😀'.repeat(7))).toMatchObject({ id: 'password.tooShort' });
  });
});

describe('throttle', () => {
  const now = 1_000_000;
  it('blocks once the limit is reached inside the window and tells the minutes left', () => {
    expect(blockedMinutes(5, { failures: 4, windowEndsAt: now + 60_000 }, now)).toBe(0);
    expect(blockedMinutes(5, { failures: 5, windowEndsAt: now + THROTTLE_WINDOW_MS }, now)).toBe(15);
    expect(blockedMinutes(5, { failures: 5, windowEndsAt: now + 1 }, now)).toBe(1);
  });

  it('lets the caller in again after the window', () => {
    expect(blockedMinutes(5, { failures: 50, windowEndsAt: now }, now)).toBe(0);
    expect(blockedMinutes(5, undefined, now)).toBe(0);
  });

  it('reads a limit override from the environment, and ignores one that is not a positive whole number', () => {
    expect(throttleLimit('address', {})).toBe(30);
    expect(throttleLimit('address', { THROTTLE_ADDRESS_LIMIT: '1000' })).toBe(1000);
    expect(throttleLimit('codesPerDay', { THROTTLE_CODESPERDAY_LIMIT: '0' })).toBe(10);
    expect(throttleLimit('keys', { THROTTLE_KEYS_LIMIT: 'many' })).toBe(60);
  });
});

describe('verification codes', () => {
  const now = 5_000_000;
  it('waits a minute between mails', () => {
    expect(secondsUntilResend({ createdAt: now - 10_000, expiresAt: now + 1, attempts: 0 }, now)).toBe(50);
    expect(secondsUntilResend({ createdAt: now - 60_000, expiresAt: now + 1, attempts: 0 }, now)).toBe(0);
    expect(secondsUntilResend(undefined, now)).toBe(0);
  });
});
