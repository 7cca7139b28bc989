import { PERSONNEL_COLUMNS, type PersonKind } from '#contract/people';
import { COLUMN_MESSAGE, type ColumnKey } from '#domain/peopleImport';
import { listDepartments } from '#data/departments';
import { listGroups } from '#data/groups';
import { listPeople, type PeopleFilter } from '#data/peopleLists';
import type { ExportJob } from '#data/exportJobs';
import type { MessageId } from '#lib/i18n';
import { sheetTime } from '#lib/xlsx';
import type { ExportSource } from './recordExports.ts';

const PAGE = 500;

/**
 * The rows of an export of employees or visitors: the list's filters, with headers in the
 * language of the caller who asked, in the columns of the import template (so the workbook can be
 * imported again), then state and leaving date (employees) and when each was added (times in the
 * company's time zone, as date cells).
 */
export async function peopleRows(job: ExportJob, timeZone: string, t: (id: MessageId) => string): Promise<ExportSource> {
  const { tenantId } = job;
  const when = sheetTime(timeZone);
  const kind: PersonKind = job.list === 'employees' ? 'employee' : 'visitor';
  const filter = job.query as PeopleFilter;
  const groups = new Map((await listGroups(tenantId, kind)).map((g) => [g.groupKey, g.name]));
  const departments = new Map((await listDepartments(tenantId)).map((d) => [d.departmentKey, d.name]));
  const keys: ColumnKey[] = ['personId', 'name', 'role', 'gender', 'group', 'phone', 'email', 'icCard', ...(kind === 'employee' ? (['department'] as const) : []), 'remark'];
  const columns: [MessageId, number][] = keys.map((key) => [COLUMN_MESSAGE[key], PERSONNEL_COLUMNS.find((c) => c.key === key)!.width]);
  if (kind === 'employee') columns.push(['column.state', 12], ['column.resignedAt', 22]);
  columns.push(['column.createTime', 22]);
  // The first page says how many there are when that is cheap to know.
  const first = await listPeople(tenantId, kind, filter, PAGE);
  async function* rows() {
    let page = first;
    for (;;) {
      for (const p of page.items) {
        const row: (string | Date)[] = [
          p.personId,
          p.name,
          p.role,
          t(p.gender === 'male' ? 'value.male' : 'value.female'),
          groups.get(p.groupKey) ?? '',
          p.phone ?? '',
          p.email ?? '',
          p.icCard ?? '',
          ...(kind === 'employee' ? [p.departmentKey ? (departments.get(p.departmentKey) ?? '') : ''] : []),
          p.remark ?? '',
        ];
        if (kind === 'employee') row.push(t(p.state === 'resigned' ? 'value.resigned' : 'value.active'), when(p.resignedAt));
        row.push(when(p.createdAt));
        yield row;
      }
      if (!page.nextCursor) return;
      page = await listPeople(tenantId, kind, filter, PAGE, page.nextCursor);
    }
  }
  return {
    sheet: kind === 'employee' ? 'sheet.employees' : 'sheet.visitors',
    columns,
    fileName: `${job.list}-${new Date().toISOString().slice(0, 10)}`,
    total: first.total,
    rows: rows(),
  };
}
