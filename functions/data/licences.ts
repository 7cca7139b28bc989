import { Entity, type EntityItem } from 'electrodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { DEFAULT_REMINDER_DAYS, TRIAL_DAYS, TRIAL_LICENCE_ID, TRIAL_SEATS, type LicenceTerms } from '#domain/licence';
import { dynamo } from '#lib/aws';
import { ConflictError, fieldError } from '#lib/errors';
import { claims } from './claims.ts';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { tenants } from './tenants.ts';
import { SERVICE, entityConfig, isConditionFailure, lazy, nowIso, tenantPartition, transactPut, transactUpdate, type TransactItem } from './entity.ts';
import { LICENCE } from './keys/main.ts';

/** Licences a tenant activated; `used` counts the terminals holding one of its seats. */
export const licences = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'licence', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          licenceId: { type: 'string', required: true },
          code: { type: 'string', required: true },
          seats: { type: 'number', required: true },
          used: { type: 'number', required: true, default: 0 },
          expiresAt: { type: 'string', required: true },
          mac: { type: 'string' },
          issuedAt: { type: 'string', required: true },
          activatedAt: { type: 'string', required: true },
          /** Expiry reminders already mailed, by days before expiry. */
          remindedAt: { type: 'list', items: { type: 'number' } },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['licenceId'], template: LICENCE.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
export type Licence = EntityItem<ReturnType<typeof licences>>;

export async function listLicences(tenantId: string): Promise<Licence[]> {
  return (await licences().query.primary({ tenantId }).go({ pages: 'all' })).data;
}

/**
 * Activates a code for a tenant: the licence and a claim on its id under the system scope, in
 * one transaction, so a code activates one tenant, once, even under parallel requests.
 */
export async function activateLicence(tenantId: string, code: string, terms: LicenceTerms): Promise<Licence> {
  const record = {
    tenantId,
    licenceId: terms.id,
    code: code.trim(),
    seats: terms.seats,
    expiresAt: new Date(terms.expiresAt).toISOString(),
    issuedAt: terms.issuedAt,
    activatedAt: nowIso(),
    ...(terms.mac ? { mac: terms.mac } : {}),
  };
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          transactPut(claims().create({ tenantId: SYSTEM_SCOPE, kind: 'licence', value: terms.id, ownerTenantId: tenantId }).params()),
          transactPut(licences().create(record).params()),
        ],
      }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw fieldError('activationCode', 'licence.alreadyUsed');
    throw error;
  }
  return (await licences().get({ tenantId, licenceId: terms.id }).go()).data!;
}

/** What the trial licence shows as its code: it has no activation code. */
export const TRIAL_CODE = 'TRIAL';

/**
 * Grants the company its free trial: one conditional put of the licence under its fixed id, so
 * however many requests race, the trial is granted once and a refused grant writes nothing.
 */
export async function grantTrial(tenantId: string, now: number): Promise<Licence> {
  const at = new Date(now).toISOString();
  try {
    const written = await licences()
      .create({
        tenantId,
        licenceId: TRIAL_LICENCE_ID,
        code: TRIAL_CODE,
        seats: TRIAL_SEATS,
        expiresAt: new Date(now + TRIAL_DAYS * 86_400_000).toISOString(),
        issuedAt: at,
        activatedAt: at,
      })
      .go();
    return written.data as Licence;
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError('licence.trialUsed');
    throw error;
  }
}

/** The write that takes one seat of a licence, refused when it has none left or has expired. */
export function takeSeatWrite(tenantId: string, licenceId: string, now: number): TransactItem {
  const update = licences().patch({ tenantId, licenceId }).add({ used: 1 }).params<Record<string, unknown>>() as NonNullable<TransactItem['Update']>;
  return {
    Update: {
      ...update,
      ConditionExpression: `${update.ConditionExpression} AND #used < #seats AND #expiresAt > :now`,
      ExpressionAttributeNames: { ...update.ExpressionAttributeNames, '#seats': 'seats', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':now': new Date(now).toISOString() },
    },
  };
}

/** The write that gives a seat back (with the deletion of the terminal that held it). */
export function releaseSeatWrite(tenantId: string, licenceId: string): TransactItem {
  return transactUpdate(licences().patch({ tenantId, licenceId }).add({ used: -1 }).params<Record<string, unknown>>());
}

export async function reminderDays(tenantId: string): Promise<number> {
  return (await tenants().get({ tenantId }).go()).data?.licenceReminderDays ?? DEFAULT_REMINDER_DAYS;
}

export async function setReminderDays(tenantId: string, days: number): Promise<void> {
  await tenants().patch({ tenantId }).set({ licenceReminderDays: days }).go();
}
