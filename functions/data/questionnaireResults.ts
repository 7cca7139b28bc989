import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { AnswerSource, AnsweredQuestion, QuestionnaireResult } from '#contract/questionnaires';
import { dynamo } from '#lib/aws';
import { isConditionFailure } from './entity.ts';
import { HIGH, decodeCursor, readNewestFirst } from './newestFirst.ts';
import { EVENTS_TABLE, tableName } from './tables.ts';
import { QUESTIONNAIRE_ANSWER, QUESTIONNAIRE_RESULT, SURVEY_LINK } from './keys/events.ts';

/**
 * Questionnaire results and the links behind terminals' QR codes, in the events table under the
 * tenant's partition:
 *
 * - a result:   `qresult#<questionnaireKey>#<answer ISO>#<resultId>`, one survey's results being one
 *               key range read newest first; each keeps the questions as asked and answered, so it
 *               reads the same whatever the survey becomes;
 * - its marker: `qanswer#<deviceKey>#<answerId>` for an answer on a terminal's screen, written only
 *               if absent together with the result: an answer sent twice (or twice at once) is
 *               stored once;
 * - a link:     `qlink#<linkId>`: the hash of its secret, the terminal and survey it is for, and
 *               when it expires; answering through it marks it used in the same transaction as the
 *               result, so a link answers once.
 *
 * Results and markers carry the privacy settings' pass-record retention as their TTL.
 */
export interface StoredResult {
  tenantId: string;
  questionnaireKey: string;
  resultId: string;
  revision: number;
  title: string;
  /** ISO time the person answered. */
  answeredAt: string;
  deviceKey: string;
  source: AnswerSource;
  personKey?: string;
  answered: AnsweredQuestion[];
  result: QuestionnaireResult;
  /** When the cloud stored it. */
  time: string;
  ttl: number;
}

export interface SurveyLink {
  tenantId: string;
  linkId: string;
  secretHash: string;
  deviceKey: string;
  questionnaireKey: string;
  /** The revision the terminal showed when it asked for the link: the one the page asks. */
  revision: number;
  /** Epoch milliseconds. */
  expiresAt: number;
  usedAt?: string;
  ttl: number;
}

const table = () => tableName(EVENTS_TABLE);
const resultSk = (r: Pick<StoredResult, 'questionnaireKey' | 'answeredAt' | 'resultId'>) =>
  QUESTIONNAIRE_RESULT.of(r.questionnaireKey, r.answeredAt, r.resultId);
const markerSk = (deviceKey: string, answerId: string) => QUESTIONNAIRE_ANSWER.of(deviceKey, answerId);
const linkSk = (linkId: string) => SURVEY_LINK.of(linkId);

/** A result's key in the API: its answer time in milliseconds and its id. */
export const resultKeyOf = (r: Pick<StoredResult, 'answeredAt' | 'resultId'>): string => `${Date.parse(r.answeredAt)}.${r.resultId}`;

const resultItem = (r: StoredResult) => {
  const { tenantId, ...rest } = r;
  return { pk: tenantId, sk: resultSk(r), kind: 'questionnaireResult', ...rest };
};

/**
 * Stores an answer from a terminal's screen once per (device, answerId). Answers `duplicate` with
 * the result stored the first time when the id came before.
 */
export async function storeScreenResult(result: StoredResult, answerId: string): Promise<{ stored: 'stored' | 'duplicate'; result: StoredResult }> {
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table(), Item: resultItem(result), ConditionExpression: 'attribute_not_exists(sk)' } },
          {
            Put: {
              TableName: table(),
              Item: {
                pk: result.tenantId,
                sk: markerSk(result.deviceKey, answerId),
                kind: 'questionnaireAnswerId',
                resultSk: resultSk(result),
                ttl: result.ttl,
              },
              ConditionExpression: 'attribute_not_exists(sk)',
            },
          },
        ],
      }),
    );
    return { stored: 'stored', result };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const first = await findScreenResult(result.tenantId, result.deviceKey, answerId);
    if (!first) throw error;
    return { stored: 'duplicate', result: first };
  }
}

/** The result an answer from a terminal's screen was stored as, when that `answerId` came before. */
export async function findScreenResult(tenantId: string, deviceKey: string, answerId: string): Promise<StoredResult | undefined> {
  const marker = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: markerSk(deviceKey, answerId) } }));
  if (!marker.Item) return undefined;
  const first = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: String(marker.Item.resultSk) } }));
  return first.Item ? fromItem(first.Item) : undefined;
}

function fromItem(item: Record<string, unknown>): StoredResult {
  const { pk, sk: _sk, kind: _kind, ...rest } = item;
  return { tenantId: String(pk), ...(rest as Omit<StoredResult, 'tenantId'>) };
}

export async function createLink(link: SurveyLink): Promise<void> {
  const { tenantId, ...rest } = link;
  await dynamo().send(
    new PutCommand({
      TableName: table(),
      Item: { pk: tenantId, sk: linkSk(link.linkId), kind: 'surveyLink', ...rest },
      ConditionExpression: 'attribute_not_exists(sk)',
    }),
  );
}

export async function findLink(tenantId: string, linkId: string): Promise<SurveyLink | undefined> {
  const out = await dynamo().send(new GetCommand({ TableName: table(), Key: { pk: tenantId, sk: linkSk(linkId) } }));
  if (!out.Item) return undefined;
  const { pk, sk: _sk, kind: _kind, ...rest } = out.Item;
  return { tenantId: String(pk), ...(rest as Omit<SurveyLink, 'tenantId'>) };
}

/**
 * Stores an answer given through a link and marks the link used, in one transaction conditioned
 * on the link being unused, unexpired and the one whose secret was shown: false (nothing stored)
 * when another answer used it first or it expired meanwhile.
 */
export async function storeLinkResult(link: SurveyLink, result: StoredResult, now = Date.now()): Promise<boolean> {
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table(),
              Key: { pk: link.tenantId, sk: linkSk(link.linkId) },
              UpdateExpression: 'SET #used = :at',
              ConditionExpression: 'attribute_exists(sk) AND attribute_not_exists(#used) AND #exp > :now AND #hash = :hash',
              ExpressionAttributeNames: { '#used': 'usedAt', '#exp': 'expiresAt', '#hash': 'secretHash' },
              ExpressionAttributeValues: { ':at': new Date(now).toISOString(), ':now': now, ':hash': link.secretHash },
            },
          },
          { Put: { TableName: table(), Item: resultItem(result), ConditionExpression: 'attribute_not_exists(sk)' } },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

// Lists

export interface ResultFilter {
  /** The range of answer times, inclusive (ISO). */
  fromIso: string;
  toIso: string;
  deviceKey?: string;
  result?: QuestionnaireResult;
}

/** One list request reads at most this many items when a filter skips most of them; the cursor goes on from there. */
export const RESULT_READ_BUDGET = 500;

/**
 * One survey's results, newest first within the range of answer times. A device or result filter
 * reads at most `budget` items per request; the page may then be short, with a cursor that goes
 * on where reading stopped.
 */
export async function listResults(
  tenantId: string,
  questionnaireKey: string,
  filter: ResultFilter,
  pageSize: number,
  cursor?: string,
  budget = RESULT_READ_BUDGET,
): Promise<{ items: StoredResult[]; nextCursor: string | null }> {
  const prefix = QUESTIONNAIRE_RESULT.prefix(questionnaireKey);
  const conditions: string[] = [];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  if (filter.deviceKey) {
    conditions.push('#d = :d');
    names['#d'] = 'deviceKey';
    values[':d'] = filter.deviceKey;
  }
  if (filter.result) {
    conditions.push('#r = :r');
    names['#r'] = 'result';
    values[':r'] = filter.result;
  }
  const page = await readNewestFirst<Record<string, unknown>>({
    table: table(),
    partition: { name: 'pk', value: tenantId },
    sortKey: 'sk',
    lower: `${prefix}${filter.fromIso}`,
    upper: `${prefix}${filter.toIso}#${HIGH}`,
    after: cursor ? decodeCursor(cursor, prefix) : undefined,
    filter: { conditions, names, values },
    pageSize,
    budget,
    keyOf: (last) => String(last.sk),
  });
  return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
}
