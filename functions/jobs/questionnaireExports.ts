import type { ResultFilterQuery } from '#contract/questionnaires';
import { recordFilterOf } from '#data/passRecordLists';
import { type ExportJob } from '#data/exportJobs';
import { listResults } from '#data/questionnaireResults';
import type { MessageId } from '#lib/i18n';
import { resultItems } from '#views/questionnaireItems';
import { localTime, type ExportSource } from './recordExports.ts';

const PAGE = 500;

const COLUMNS: [MessageId, number][] = [
  ['column.answerTime', 21],
  ['column.name', 20],
  ['column.personType', 12],
  ['column.device', 20],
  ['column.answerSource', 12],
  ['column.revision', 10],
  ['column.result', 12],
  ['column.answers', 80],
];

/**
 * The rows of an export of one survey's results: the list's filter, newest first, each result's
 * answers as "question: answer" lines, in the language of the caller who asked.
 */
export async function questionnaireRows(job: ExportJob, timeZone: string, t: (id: MessageId) => string): Promise<ExportSource> {
  const { tenantId } = job;
  const query = job.query as ResultFilterQuery & { questionnaireKey: string };
  const range = recordFilterOf({ ...(query.from ? { from: query.from } : {}), ...(query.to ? { to: query.to } : {}) }, timeZone);
  const filter = {
    fromIso: range.fromIso,
    toIso: range.toIso,
    ...(query.deviceKey ? { deviceKey: query.deviceKey } : {}),
    ...(query.result ? { result: query.result } : {}),
  };
  const when = localTime(timeZone);
  async function* rows() {
    let cursor: string | undefined;
    do {
      const page = await listResults(tenantId, query.questionnaireKey, filter, PAGE, cursor, 20 * PAGE);
      for (const item of await resultItems(tenantId, page.items)) {
        yield [
          when(item.answerTime),
          item.person ? (item.person.name ?? '') : t('value.anonymous'),
          item.person ? t(`value.record.${item.person.kind}`) : '',
          item.deviceName,
          t(`value.answerSource.${item.source}`),
          item.revision,
          t(`value.result.${item.result}`),
          item.answers.map((a) => `${a.question}: ${a.type === 'text' ? (a.text ?? '') : a.choices.join(', ')}${a.alarm ? ' (!)' : ''}`).join('\n'),
        ];
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return {
    sheet: 'sheet.questionnaireResults',
    columns: COLUMNS,
    fileName: `questionnaire-results-${range.fromDay}-${range.toDay}`,
    total: undefined,
    rows: rows(),
  };
}
