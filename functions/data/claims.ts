import { Entity } from 'electrodb';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, tenantPartition } from './entity.ts';
import { CLAIM } from './keys/main.ts';

/**
 * Names that must be unique: login usernames, device binding codes and activated licence ids
 * across tenants (under the system scope: login and binding carry no tenant), device serial
 * numbers, intercom numbers and group names (per group type) within their tenant. Each claim only points at its owner.
 * Companies that keep attendance are claimed under the system scope too (`attendanceTenant`), so
 * the day-close job knows whose days to close.
 */
export const claims = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'claim', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          kind: { type: ['username', 'userCode', 'deviceSerial', 'groupName', 'licence', 'attendanceTenant', 'intercomNumber'] as const, required: true },
          value: { type: 'string', required: true },
          ownerTenantId: { type: 'string', required: true },
          accountId: { type: 'string' },
          deviceKey: { type: 'string' },
          groupKey: { type: 'string' },
          /**
           * A serial number whose device an administrator deleted: the claim stays, so that the
           * terminal binding again asks to be added again (`requestKey`) instead of creating itself.
           */
          deletedAt: { type: 'string' },
          requestKey: { type: 'string' },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['kind', 'value'], template: CLAIM.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
