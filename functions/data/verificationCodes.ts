import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { VERIFICATION_CODE } from './keys/main.ts';

/** Mailed 6-digit codes for sign-up (by email) and password recovery (by username). */
export const verificationCodes = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'verificationCode', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          purpose: { type: ['register', 'retrieve'] as const, required: true },
          subject: { type: 'string', required: true },
          codeHash: { type: 'string', required: true },
          /** Tries counted so far, the right one included; counted before the code is compared. */
          attempts: { type: 'number', required: true, default: 0 },
          /** When the code was used up; a spent code stays until it expires, so the resend wait still holds. */
          spentAt: { type: 'number' },
          createdAt: { type: 'number', required: true },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: {
            pk: tenantPartition,
            sk: { field: 'sk', composite: ['purpose', 'subject'], template: VERIFICATION_CODE.template, casing: 'none' },
          },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
