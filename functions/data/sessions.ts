import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { SESSION } from './keys/main.ts';

export const sessions = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'session', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          /** SHA-256 of the bearer token; the token itself is never stored. */
          tokenHash: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
          authVersion: { type: 'number', required: true },
          /** RSA key pair of this session: the console encrypts password changes with the public half. */
          publicKey: { type: 'string', required: true },
          privateKey: { type: 'string', required: true },
          createdAt: { type: 'number', required: true },
          lastSeenAt: { type: 'number', required: true },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
          /** Client ids of the session's live connections (contract/live.ts), ended with it. */
          liveClients: { type: 'set', items: 'string' },
          /** When a live connection of the session was last admitted (ms): a disconnect the broker reports from before it may be of a connection since replaced. */
          liveAdmittedAt: { type: 'number' },
          /** The company required two-factor login when this session began and the account had none: it must enrol first. */
          enrolTwoFactor: { type: 'boolean' },
          /** When the password was last confirmed in this session (re-authentication, lib/auth.ts). */
          confirmedAt: { type: 'number' },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['tokenHash'], template: SESSION.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
