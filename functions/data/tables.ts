import { env, type EnvName } from '../lib/env.ts';

/**
 * The DynamoDB tables. Every partition key starts with the tenant id (`_system` for the few
 * records that exist before a tenant is known: login keys, sign-up codes, name claims, throttles).
 * The CDK stack and the local host both create the tables from these definitions.
 */
export interface TableDef {
  /** Environment variable that carries the physical name. */
  env: EnvName;
  defaultName: string;
  partitionKey: string;
  sortKey: string;
  indexes: { name: string; partitionKey: string; sortKey: string }[];
  ttlAttribute: string;
  /** Items are only ever added: on AWS the table's resource policy denies changing or removing one to every principal. */
  appendOnly?: true;
}

export const MAIN_TABLE: TableDef = {
  env: 'MAIN_TABLE',
  defaultName: 'passcloud-main',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  ttlAttribute: 'ttl',
};

/** High-volume events (pass records, call records, mail records) with TTL retention. */
export const EVENTS_TABLE: TableDef = {
  env: 'EVENTS_TABLE',
  defaultName: 'passcloud-events',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [{ name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' }],
  ttlAttribute: 'ttl',
};

/**
 * The audit log: append-only. Functions may add entries and read them, never change or remove
 * one (on AWS the table's resource policy denies it to everyone); TTL ends an entry after 400 days.
 */
export const AUDIT_TABLE: TableDef = {
  env: 'AUDIT_TABLE',
  defaultName: 'passcloud-audit',
  partitionKey: 'pk',
  sortKey: 'sk',
  indexes: [],
  ttlAttribute: 'ttl',
  appendOnly: true,
};

export const TABLES = [MAIN_TABLE, EVENTS_TABLE, AUDIT_TABLE];

export function tableName(def: TableDef): string {
  return env(def.env) ?? def.defaultName;
}

/** The scope of records that belong to no tenant yet. */
export const SYSTEM_SCOPE = '_system';
