import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { AUDIT_KINDS } from '#contract/audit';
import { appendAudit, type NewAuditEntry } from '#data/auditLog';
import { declareEnvironment } from '#lib/env';
import { log, logged } from '#lib/log';
import { pool } from '#lib/pool';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_TABLE']);

const text = (most: number) => z.string().max(most);
/** What a queued entry must be; anything else is dropped and logged, never written. */
const entrySchema = z.strictObject({
  tenantId: text(64).min(1),
  auditId: text(64).min(1),
  at: z.iso.datetime(),
  kind: z.enum(AUDIT_KINDS),
  accountId: text(64).nullable(),
  username: text(256),
  action: text(512).nullable(),
  target: z.record(text(64), text(256)),
  fields: z.array(text(256)).max(50),
  code: z.number().int(),
  reason: text(64).nullable(),
  sourceIp: text(64),
  userAgent: text(256).nullable(),
  requestId: text(128),
});

/**
 * The audit log's only writer: adds the entries the API functions queue (lib/audit.ts), each with
 * a put conditioned on its key being new, so a message received twice adds its entry once and no
 * entry is ever replaced. Entries it fails on come back, and after five receipts wait in the
 * dead-letter queue (infra/aws/audit.ts).
 */
async function handle(event: SQSEvent): Promise<SQSBatchResponse> {
  const failures: { itemIdentifier: string }[] = [];
  await pool(event.Records, 10, async (record) => {
    let parsed: ReturnType<typeof entrySchema.safeParse>;
    try {
      parsed = entrySchema.safeParse(JSON.parse(record.body));
    } catch {
      return log('error', 'audit message dropped: not JSON', { messageId: record.messageId });
    }
    if (!parsed.success) return log('error', 'audit message dropped: not an entry', { messageId: record.messageId, issues: parsed.error.issues.slice(0, 5) });
    try {
      await appendAudit(parsed.data satisfies NewAuditEntry);
    } catch (error) {
      log('error', 'audit entry not added; it is received again', { messageId: record.messageId, error: String(error) });
      failures.push({ itemIdentifier: record.messageId });
    }
  });
  return { batchItemFailures: failures };
}

export const handler = logged('auditWriter', handle);
