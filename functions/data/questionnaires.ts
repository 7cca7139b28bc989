import { BatchWriteCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { QUESTIONNAIRE_LIMITS, type QuestionnaireMode, type QuestionnaireState, type Question, type SurveyTranslations } from '#contract/questionnaires';
import { dynamo } from '#lib/aws';
import { ConflictError, NotFoundError } from '#lib/errors';
import { newTimeId } from '#lib/crypto';
import { finishBatch, isConditionFailure, nowIso, skPrefix, type TransactItem } from './entity.ts';
import { MAIN_TABLE, tableName } from './tables.ts';
import { QUESTIONNAIRE, QUESTIONNAIRE_COUNT, QUESTIONNAIRE_REVISION } from './keys/main.ts';

/**
 * Questionnaires in the main table, under the tenant's partition:
 *
 * - the survey:        `questionnaire#<questionnaireKey>`, versioned like every mutable entity;
 * - its revisions:     `questionnaireRevision#<questionnaireKey>#<revision, 6 digits>`, what was asked
 *                      in each revision, so an answer to an earlier one is checked against it;
 * - two counters:      `questionnaireCount#all` and `questionnaireCount#open`, moved in the same
 *                      transaction as a create, a delete, an opening or a closing, conditioned on
 *                      staying under QUESTIONNAIRE_LIMITS (parallel requests cannot pass a cap).
 */
export interface Questionnaire {
  tenantId: string;
  questionnaireKey: string;
  title: string;
  mode: QuestionnaireMode;
  displaySeconds: number;
  deviceKeys: string[];
  groupKeys: string[];
  questions: Question[];
  /** The survey in other languages (absent on surveys saved before translations existed: none). */
  translations?: SurveyTranslations;
  state: QuestionnaireState;
  revision: number;
  /** Set the first time it opens: from then on, changed questions make a new revision. */
  openedAt?: string;
  closedAt?: string;
  createdAt: string;
  updatedAt: string;
  version: number;
}

export interface QuestionnaireRevision {
  title: string;
  questions: Question[];
  translations: SurveyTranslations;
  createdAt: string;
}

const table = () => tableName(MAIN_TABLE);
const sk = (questionnaireKey: string) => QUESTIONNAIRE.of(questionnaireKey);
const revisionSk = (questionnaireKey: string, revision: number) => QUESTIONNAIRE_REVISION.of(questionnaireKey, String(revision).padStart(6, '0'));
const FIELDS = [
  'title',
  'mode',
  'displaySeconds',
  'deviceKeys',
  'groupKeys',
  'questions',
  'translations',
  'state',
  'revision',
  'openedAt',
  'closedAt',
  'createdAt',
  'updatedAt',
  'version',
] as const;

function fromItem(item: Record<string, unknown>): Questionnaire {
  const q: Record<string, unknown> = { tenantId: item.pk, questionnaireKey: String(item.sk).slice(QUESTIONNAIRE.prefix().length) };
  for (const field of FIELDS) if (item[field] !== undefined) q[field] = item[field];
  return q as unknown as Questionnaire;
}
function toItem(q: Questionnaire): Record<string, unknown> {
  const { tenantId, questionnaireKey, ...rest } = q;
  return { pk: tenantId, sk: sk(questionnaireKey), kind: 'questionnaire', ...rest };
}

type CountKind = 'all' | 'open';
const LIMIT: Record<CountKind, number> = { all: QUESTIONNAIRE_LIMITS.perCompany, open: QUESTIONNAIRE_LIMITS.open };

/** One transaction item that counts a survey in (under the cap) or out. */
function counting(tenantId: string, kind: CountKind, delta: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: table(),
      Key: { pk: tenantId, sk: QUESTIONNAIRE_COUNT.of(kind) },
      UpdateExpression: 'ADD #n :delta',
      ExpressionAttributeNames: { '#n': 'n' },
      ExpressionAttributeValues: delta > 0 ? { ':delta': 1, ':max': LIMIT[kind] } : { ':delta': -1 },
      ...(delta > 0 ? { ConditionExpression: 'attribute_not_exists(#n) OR #n < :max' } : {}),
    },
  };
}

/** The index of the item whose condition refused a transaction, or -1. */
const refusedAt = (error: unknown): number =>
  ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).findIndex((r) => r.Code === 'ConditionalCheckFailed');

export async function findQuestionnaire(tenantId: string, questionnaireKey: string): Promise<Questionnaire | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: sk(questionnaireKey) } }));
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function requireQuestionnaire(tenantId: string, questionnaireKey: string): Promise<Questionnaire> {
  const found = await findQuestionnaire(tenantId, questionnaireKey);
  if (!found) throw new NotFoundError();
  return found;
}

/** Every survey of the company (at most QUESTIONNAIRE_LIMITS.perCompany), oldest first. */
export async function allQuestionnaires(tenantId: string): Promise<Questionnaire[]> {
  const range = skPrefix(QUESTIONNAIRE.prefix());
  const out: Questionnaire[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: `#pk = :pk AND ${range.condition}`,
        ExpressionAttributeNames: { '#pk': 'pk', '#sk': 'sk' },
        ExpressionAttributeValues: { ':pk': tenantId, ...range.values },
        ExclusiveStartKey: start,
      }),
    );
    out.push(...(page.Items ?? []).map(fromItem));
    start = page.LastEvaluatedKey;
  } while (start);
  return out;
}

export const openQuestionnaires = async (tenantId: string): Promise<Questionnaire[]> => (await allQuestionnaires(tenantId)).filter((q) => q.state === 'open');

export async function findRevision(tenantId: string, questionnaireKey: string, revision: number): Promise<QuestionnaireRevision | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: revisionSk(questionnaireKey, revision) } }));
  if (!out.Item) return undefined;
  return {
    title: String(out.Item.title),
    questions: out.Item.questions as Question[],
    translations: (out.Item.translations ?? {}) as SurveyTranslations,
    createdAt: String(out.Item.createdAt),
  };
}

const revisionPut = (q: Questionnaire): TransactItem => ({
  Put: {
    TableName: table(),
    Item: {
      pk: q.tenantId,
      sk: revisionSk(q.questionnaireKey, q.revision),
      kind: 'questionnaireRevision',
      translations: q.translations ?? {},
      title: q.title,
      questions: q.questions,
      createdAt: q.updatedAt,
    },
  },
});

export type QuestionnaireInput = Pick<Questionnaire, 'title' | 'mode' | 'displaySeconds' | 'deviceKeys' | 'groupKeys' | 'questions'> & {
  translations: SurveyTranslations;
};

/** A new survey, closed, at revision 1; the company's cap answers 409. */
export async function createQuestionnaire(tenantId: string, input: QuestionnaireInput): Promise<Questionnaire> {
  const now = nowIso();
  const q: Questionnaire = { tenantId, questionnaireKey: newTimeId(), ...input, state: 'closed', revision: 1, createdAt: now, updatedAt: now, version: 1 };
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: toItem(q), ConditionExpression: 'attribute_not_exists(sk)' } },
          revisionPut(q),
          counting(tenantId, 'all', 1),
        ],
      }),
    );
  } catch (error) {
    if (isConditionFailure(error) && refusedAt(error) === 2)
      throw new ConflictError('questionnaire.tooMany', undefined, { max: QUESTIONNAIRE_LIMITS.perCompany });
    throw error;
  }
  return q;
}

/** JSON with every object's keys sorted: the same value reads the same whatever order DynamoDB gave its map keys back in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );

/** What the terminal shows changed: the questions, the title, their translations, the mode or the display time. */
export function contentChanged(before: Questionnaire, after: QuestionnaireInput): boolean {
  return (
    before.title !== after.title ||
    before.mode !== after.mode ||
    before.displaySeconds !== after.displaySeconds ||
    canonical(before.questions) !== canonical(after.questions) ||
    canonical(before.translations ?? {}) !== canonical(after.translations)
  );
}

/**
 * Saves an edit made against `version`. A survey that has ever been opened gets a new revision
 * when what it shows changed (answers keep the revision they answered); one never opened is
 * rewritten in place. Stale versions answer 409, a survey gone 404; nothing is written then.
 */
export async function updateQuestionnaire(current: Questionnaire, version: number, input: QuestionnaireInput): Promise<Questionnaire> {
  const changed = contentChanged(current, input);
  const revision = changed && current.openedAt ? current.revision + 1 : current.revision;
  const next: Questionnaire = { ...current, ...input, revision, updatedAt: nowIso(), version: version + 1 };
  await guarded(current, version, [
    {
      Put: {
        TableName: table(),
        Item: toItem(next),
        ConditionExpression: 'attribute_exists(sk) AND #v = :v',
        ExpressionAttributeNames: { '#v': 'version' },
        ExpressionAttributeValues: { ':v': version },
      },
    },
    ...(changed ? [revisionPut(next)] : []),
  ]);
  return next;
}

/** Opens or closes a survey; opening counts it against the company's open surveys (409 past the cap). */
export async function setQuestionnaireState(current: Questionnaire, version: number, state: QuestionnaireState): Promise<Questionnaire> {
  if (current.state === state) {
    if (current.version !== version) throw new ConflictError();
    return current;
  }
  const now = nowIso();
  const next: Questionnaire = {
    ...current,
    state,
    ...(state === 'open' ? { openedAt: now } : { closedAt: now }),
    updatedAt: now,
    version: version + 1,
  };
  await guarded(current, version, [
    {
      Put: {
        TableName: table(),
        Item: toItem(next),
        ConditionExpression: 'attribute_exists(sk) AND #v = :v AND #st = :st',
        ExpressionAttributeNames: { '#v': 'version', '#st': 'state' },
        ExpressionAttributeValues: { ':v': version, ':st': current.state },
      },
    },
    counting(current.tenantId, 'open', state === 'open' ? 1 : -1),
  ]);
  return next;
}

/** Deletes a closed survey and its revisions; an open one answers 409 (close it first). */
export async function deleteQuestionnaire(current: Questionnaire, version: number): Promise<void> {
  if (current.state === 'open') throw new ConflictError('questionnaire.closeFirst');
  await guarded(current, version, [
    {
      Delete: {
        TableName: table(),
        Key: { pk: current.tenantId, sk: sk(current.questionnaireKey) },
        ConditionExpression: 'attribute_exists(sk) AND #v = :v AND #st = :closed',
        ExpressionAttributeNames: { '#v': 'version', '#st': 'state' },
        ExpressionAttributeValues: { ':v': version, ':closed': 'closed' },
      },
    },
    counting(current.tenantId, 'all', -1),
  ]);
  const keys = Array.from({ length: current.revision }, (_, i) => ({ pk: current.tenantId, sk: revisionSk(current.questionnaireKey, i + 1) }));
  for (let i = 0; i < keys.length; i += 25) {
    // Unprocessed deletes are sent again (finishBatch), so no revision outlives its survey.
    await finishBatch('questionnaire revisions', keys.slice(i, i + 25), async (part) => {
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table()]: part.map((Key) => ({ DeleteRequest: { Key } })) } }));
      return { unprocessed: (out.UnprocessedItems?.[table()] ?? []).map((r) => r.DeleteRequest!.Key as { pk: string; sk: string }) };
    });
  }
}

/**
 * Runs a transaction whose first item is conditioned on the survey's version: when that fails
 * the survey is read again (gone: 404, changed: 409); when the counter after it fails, the open
 * cap was reached (409 naming it).
 */
async function guarded(current: Questionnaire, version: number, items: TransactItem[]): Promise<void> {
  if (current.version !== version) throw new ConflictError();
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    if (refusedAt(error) === 1 && items[1]?.Update) throw new ConflictError('questionnaire.tooManyOpen', undefined, { max: QUESTIONNAIRE_LIMITS.open });
    if (!(await findQuestionnaire(current.tenantId, current.questionnaireKey))) throw new NotFoundError();
    throw new ConflictError();
  }
}
