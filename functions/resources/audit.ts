import { API_KEY_ACTOR } from '#lib/auth';
import { AUDIT_EXPORT_LIMIT, auditExportQuery, auditListQuery, auditPage, type AuditEntryJson } from '#contract/audit';
import type { Locale } from '#contract/locales';
import { auditKeyOf, listAudit, readAuditForExport, type AuditEntry } from '#data/auditLog';
import { currentItemName } from '#data/auditItems';
import { fieldError } from '#lib/errors';
import { defineResource, ok, sessionRoute } from '#lib/http';
import { translate, type MessageId } from '#lib/i18n';
import { sheetTime, writeSheet, xlsxDownload } from '#lib/xlsx';
import { companyTimezone } from '#data/tenants';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'AUDIT_TABLE', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

/** The API key an entry's change was made with, or null when a person made it. */
const keyOf = (entry: AuditEntry): string | null => (entry.accountId?.startsWith(API_KEY_ACTOR) ? entry.accountId.slice(API_KEY_ACTOR.length) : null);

/** Whether each item the entries name is still there (one read per item), by `param:key`. */
async function itemsThere(tenantId: string, entries: AuditEntry[]): Promise<Set<string>> {
  const ids = [...new Set(entries.flatMap((e) => (e.item ? [`${e.item.param}:${e.item.key}`] : [])))];
  const there = await Promise.all(ids.map(async (id) => (await currentItemName(tenantId, id.split(':')[0]!, id.slice(id.indexOf(':') + 1))) !== undefined));
  return new Set(ids.filter((_, i) => there[i]));
}

function entryJson(entry: AuditEntry, there: Set<string>): AuditEntryJson {
  return {
    auditKey: auditKeyOf(entry),
    time: entry.at,
    kind: entry.kind,
    username: entry.username,
    apiKey: keyOf(entry),
    action: entry.action,
    target: entry.target,
    item: entry.item ? { ...entry.item, exists: there.has(`${entry.item.param}:${entry.item.key}`) } : null,
    fields: entry.fields,
    code: entry.code,
    reason: entry.reason,
    sourceIp: entry.sourceIp,
    userAgent: entry.userAgent,
  };
}

async function workbook(entries: AuditEntry[], locale: Locale, timeZone: string): Promise<Buffer> {
  const t = (id: MessageId) => translate(locale, id);
  const when = sheetTime(timeZone);
  const columns = [
    { header: t('column.auditTime'), width: 26 },
    { header: t('column.auditKind'), width: 16 },
    { header: t('column.account'), width: 22 },
    { header: t('column.auditAction'), width: 48 },
    { header: t('column.auditTarget'), width: 36 },
    { header: t('column.auditItemName'), width: 30 },
    { header: t('column.auditFields'), width: 36 },
    { header: t('column.auditCode'), width: 10 },
    { header: t('column.auditReason'), width: 18 },
    { header: t('column.sourceIp'), width: 20 },
    { header: t('column.userAgent'), width: 40 },
  ];
  const rows = entries.map((e) => [
    when(e.at),
    t(`audit.kind.${e.kind}`),
    // A key's name could be any account's: the workbook says which entries a key made, as the list does.
    keyOf(e) ? `${e.username} (${t('field.apiKey')})` : e.username,
    e.action ?? '',
    Object.entries(e.target)
      .map(([name, value]) => `${name}=${value}`)
      .join(', '),
    e.item?.name ?? '',
    e.fields.join(', '),
    e.code,
    e.reason ? t(`audit.reason.${e.reason}` as MessageId) : '',
    e.sourceIp,
    e.userAgent ?? '',
  ]);
  return writeSheet(t('sheet.audit'), columns, rows);
}

/**
 * `/v1/audit`: the company's audit log, newest first, filtered by time, kind and account; and its
 * export. Nothing here or anywhere else changes or removes an entry.
 */
export const audit = defineResource('audit', {
  'GET /v1/audit': sessionRoute({
    answer: auditPage,
    query: auditListQuery,
    async handle({ auth, query }) {
      const page = await listAudit(auth.tenantId, query, query.pageSize);
      const there = await itemsThere(auth.tenantId, page.items);
      return ok({ items: page.items.map((entry) => entryJson(entry, there)), nextCursor: page.nextCursor });
    },
  }),
  'GET /v1/audit/export': sessionRoute({
    query: auditExportQuery,
    async handle({ auth, query, locale }) {
      const read = await readAuditForExport(auth.tenantId, query, AUDIT_EXPORT_LIMIT);
      if ('refused' in read) throw fieldError('from', read.refused === 'tooMany' ? 'audit.exportTooLarge' : 'audit.exportTooWide', { limit: AUDIT_EXPORT_LIMIT });
      return xlsxDownload(`audit-${new Date().toISOString().slice(0, 10)}.xlsx`, await workbook(read.entries, locale, await companyTimezone(auth.tenantId)));
    },
  }),
});

export const handler = audit.handler;
