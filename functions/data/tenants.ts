import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';

export const tenants = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'tenant', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          companyName: { type: 'string', required: true },
          /** The device binding code devices use to join this tenant. */
          userCode: { type: 'string', required: true },
          createdAt: { type: 'string', required: true },
          /** The owner's language at registration: mails no user asked for (reminders) are written in it. */
          locale: { type: 'string' },
          /** Days before a licence expires when its reminder mail goes out (and it shows as expiring). */
          licenceReminderDays: { type: 'number' },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: 'tenant', casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
