import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { TENANT_SK } from './keys/main.ts';

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
          /** The company's IANA time zone: days of records, counters and validities are its days. UTC when unset. */
          timezone: { type: 'string' },
          /** The owner requires two-factor login of every account: one without it enrols at its next login before anything else. */
          requireTwoFactor: { type: 'boolean' },
          version: { type: 'number', required: true, default: 1 },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: TENANT_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

/** The company's time zone (IANA name), UTC when it has not chosen one. */
export async function companyTimezone(tenantId: string): Promise<string> {
  const tenant = (await tenants().get({ tenantId }).go()).data;
  return tenant?.timezone ?? 'UTC';
}
