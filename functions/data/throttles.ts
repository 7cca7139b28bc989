import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { THROTTLE_SCOPES } from '#domain/throttle';

/** Attempt counters per scope and subject, each over a fixed window (domain/throttle.ts). */
export const throttles = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'throttle', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          scope: { type: THROTTLE_SCOPES, required: true },
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
