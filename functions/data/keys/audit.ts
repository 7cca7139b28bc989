import { sortKey } from './sortKey.ts';

/** Keys of the audit table (data/tables.ts AUDIT_TABLE): a company's entries in one partition, oldest first. */
export const auditPartition = (tenantId: string): string => `${tenantId}#audit`;
export const AUDIT_ENTRY = sortKey('audit', ['at', 'auditId'] as const);
