import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';

/** Failed-login counters per account name and per address, each over a fixed window. */
export const throttles = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'throttle', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          scope: { type: ['account', 'address'] as const, required: true },
          subject: { type: 'string', required: true },
          failures: { type: 'number', required: true, default: 0 },
          windowEndsAt: { type: 'number', required: true },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['scope', 'subject'], template: 'throttle#${scope}#${subject}', casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
