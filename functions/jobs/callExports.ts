import type { CallFilterQuery } from '#contract/intercom';
import { listCalls } from '#data/intercomCalls';
import { recordFilterOf } from '#data/passRecordLists';
import { type ExportJob } from '#data/exportJobs';
import { callItems } from '#views/intercomItems';
import type { MessageId } from '#lib/i18n';
import { localTime, type ExportSource } from './recordExports.ts';

const PAGE = 500;

const COLUMNS: [MessageId, number][] = [
  ['column.callTime', 21],
  ['column.callStatus', 14],
  ['column.callingDevice', 24],
  ['column.calledDevice', 24],
  ['column.duration', 12],
  ['column.doorOpened', 21],
  ['column.recording', 12],
];

/** The rows of an export of intercom calls, one per call: the list's filter, newest first, in the language of the caller who asked. */
export async function callRows(job: ExportJob, timeZone: string, t: (id: MessageId) => string): Promise<ExportSource> {
  const { tenantId } = job;
  const query = job.query as CallFilterQuery;
  const range = recordFilterOf({ ...(query.from ? { from: query.from } : {}), ...(query.to ? { to: query.to } : {}) }, timeZone);
  const filter = {
    fromIso: range.fromIso,
    toIso: range.toIso,
    ...(query.deviceKey ? { deviceKey: query.deviceKey } : {}),
    ...(query.status ? { status: query.status } : {}),
  };
  const when = localTime(timeZone);
  const party = (p: { name: string | null; number: string | null }) => [p.name, p.number ? `(${p.number})` : ''].filter(Boolean).join(' ');
  async function* rows() {
    let cursor: string | undefined;
    do {
      const page = await listCalls(tenantId, filter, PAGE, cursor, 20 * PAGE);
      for (const call of await callItems(tenantId, page.items, { checkRecordings: false })) {
        yield [
          when(call.callTime),
          t(`value.call.${call.status}` as MessageId),
          party(call.calling),
          party(call.called),
          call.duration ?? '',
          call.doorOpenedAt ? when(call.doorOpenedAt) : '',
          t(call.recording.state === 'none' ? 'value.no' : 'value.yes'),
        ];
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return { sheet: 'sheet.calls', columns: COLUMNS, fileName: `intercom-calls-${range.fromDay}-${range.toDay}`, total: undefined, rows: rows() };
}
