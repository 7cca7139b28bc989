import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { SECURITY_KEY } from './keys/main.ts';

/** Login keys handed out by `POST /v1/systems/security`, kept 5 minutes, used once. */
export const securityKeys = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'securityKey', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          securityId: { type: 'string', required: true },
          publicKey: { type: 'string', required: true },
          privateKey: { type: 'string', required: true },
          expiresAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['securityId'], template: SECURITY_KEY.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
