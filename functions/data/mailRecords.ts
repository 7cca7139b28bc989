import { Entity } from 'electrodb';
import { EVENTS_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';

/** Every mail the product sends, newest last in key order; kept for a year. */
export const mailRecords = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'mailRecord', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          mailId: { type: 'string', required: true },
          sentAt: { type: 'string', required: true },
          kind: { type: 'string', required: true },
          from: { type: 'string', required: true },
          to: { type: 'string', required: true },
          title: { type: 'string', required: true },
          content: { type: 'string', required: true },
          status: { type: ['sent', 'failed'] as const, required: true },
          error: { type: 'string' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['sentAt', 'mailId'], template: 'mail#${sentAt}#${mailId}', casing: 'none' } },
        },
      },
      entityConfig(EVENTS_TABLE),
    ),
);
