import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { ACCOUNT } from './keys/main.ts';

export const accounts = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'account', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
          username: { type: 'string', required: true },
          email: { type: 'string' },
          nickname: { type: 'string', required: true },
          phone: { type: 'string' },
          avatar: { type: 'string' },
          remark: { type: 'string' },
          passwordHash: { type: 'string', required: true },
          authCodes: { type: 'list', items: { type: 'string' }, required: true },
          /** Bumped when permissions change or the account is disabled: older sessions answer 661. */
          authVersion: { type: 'number', required: true, default: 1 },
          disabled: { type: 'boolean', required: true, default: false },
          /** Set by an initial or reset password: every route but changing it answers 401 until it is changed. */
          mustChangePassword: { type: 'boolean', required: true, default: false },
          owner: { type: 'boolean', required: true, default: false },
          /** Hash of the one live session token; an older token answers 662. */
          activeSession: { type: 'string' },
          /** Two-factor login (data/twoFactor.ts): the authenticator's secret, sealed (lib/secretBox.ts); present while it is on. */
          totpSecret: { type: 'string' },
          /** When two-factor login was turned on (ISO). */
          twoFactorAt: { type: 'string' },
          /** The last time step whose code was accepted: a code of it or an earlier one is refused (no replay). */
          totpLastStep: { type: 'number' },
          /** Hashes of the recovery codes not yet used (lib/totp.ts recoveryCodeHash); each is removed as it is used. */
          recoveryCodes: { type: 'set', items: 'string' },
          /** A secret handed out for enrolment, sealed, until it is confirmed with a code or `totpPendingUntil` passes. */
          totpPending: { type: 'string' },
          totpPendingUntil: { type: 'number' },
          createdAt: { type: 'string', required: true },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['accountId'], template: ACCOUNT.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
