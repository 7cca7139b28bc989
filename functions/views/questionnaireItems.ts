import type { DeviceQuestionnaire } from '#contract/protocol';
import type { AnswerSource, Answer, QuestionnaireItem, QuestionnaireResultItem, SurveyTranslations } from '#contract/questionnaires';
import { findDevice, isIntercom, type Device } from '#data/devices';
import { findPerson } from '#data/people';
import { findRevision, type Questionnaire } from '#data/questionnaires';
import { resultKeyOf, type StoredResult } from '#data/questionnaireResults';
import { privacySettings, retentionTtl } from '#data/settings';
import { checkAnswers, inScope } from '#domain/questionnaires';
import { newTimeId } from '#lib/crypto';
import { ConflictError, ValidationError, fieldError } from '#lib/errors';

/**
 * What questionnaires look like to the console and to the terminals: the surveys in a terminal's
 * scope, the answers it may take, and the results as the console lists them.
 */

const scopeOf = (q: Pick<Questionnaire, 'deviceKeys' | 'groupKeys'>) => ({ deviceKeys: q.deviceKeys, groupKeys: q.groupKeys });

/** The face terminals a survey's scope covers now. */
export const devicesInScope = (q: Pick<Questionnaire, 'deviceKeys' | 'groupKeys'>, fleet: readonly Device[]): Device[] =>
  fleet.filter((d) => !isIntercom(d) && inScope(scopeOf(q), d));

export function questionnaireJson(q: Questionnaire, fleet: readonly Device[]): QuestionnaireItem {
  return {
    questionnaireKey: q.questionnaireKey,
    title: q.title,
    mode: q.mode,
    displaySeconds: q.displaySeconds,
    scope: scopeOf(q),
    questions: q.questions,
    translations: q.translations ?? {},
    state: q.state,
    revision: q.revision,
    deviceCount: devicesInScope(q, fleet).length,
    openTime: q.openedAt ?? null,
    closeTime: q.closedAt ?? null,
    createTime: q.createdAt,
    updateTime: q.updatedAt,
    version: q.version,
  };
}

/** The open surveys a terminal is to show, oldest first. */
export const surveysOf = (device: Device, open: readonly Questionnaire[]): Questionnaire[] =>
  isIntercom(device) ? [] : open.filter((q) => inScope(scopeOf(q), device)).sort((a, b) => a.questionnaireKey.localeCompare(b.questionnaireKey));

export const deviceQuestionnaireJson = (q: Questionnaire): DeviceQuestionnaire => ({
  questionnaireKey: q.questionnaireKey,
  revision: q.revision,
  title: q.title,
  mode: q.mode,
  displaySeconds: q.displaySeconds,
  questions: q.questions,
  translations: q.translations ?? {},
});

/** The survey a terminal may take answers for now: open, and the terminal in its scope (409 otherwise). */
export async function surveyForDevice(q: Questionnaire | undefined, device: Device | undefined): Promise<Questionnaire> {
  if (!q || !device || q.state !== 'open' || !surveysOf(device, [q]).length) throw new ConflictError('questionnaire.notOpenHere');
  return q;
}

/** The questions of one revision of a survey: the current one, or an earlier one an answer names. */
export async function questionsOf(q: Questionnaire, revision: number): Promise<{ title: string; questions: Questionnaire['questions']; translations: SurveyTranslations }> {
  if (revision === q.revision) return { title: q.title, questions: q.questions, translations: q.translations ?? {} };
  const earlier = revision < q.revision ? await findRevision(q.tenantId, q.questionnaireKey, revision) : undefined;
  if (!earlier) throw fieldError('revision', 'questionnaire.revisionUnknown');
  return earlier;
}

/**
 * Checks one person's answers to a revision of a survey and makes the result to store: 422 naming
 * each answer that is missing or wrong.
 */
export async function resultOf(
  q: Questionnaire,
  revision: number,
  answers: Answer[],
  facts: { deviceKey: string; source: AnswerSource; answeredAt: Date; personKey?: string | undefined; resultId?: string },
): Promise<StoredResult> {
  const { title, questions } = await questionsOf(q, revision);
  const checked = checkAnswers(questions, answers);
  if (checked.issues.length > 0) throw new ValidationError(checked.issues.map((issue) => ({ path: issue.path, message: issue.message })));
  const privacy = await privacySettings(q.tenantId);
  const now = new Date();
  return {
    tenantId: q.tenantId,
    questionnaireKey: q.questionnaireKey,
    resultId: facts.resultId ?? newTimeId(now.getTime()),
    revision,
    title,
    answeredAt: facts.answeredAt.toISOString(),
    deviceKey: facts.deviceKey,
    source: facts.source,
    ...(facts.personKey ? { personKey: facts.personKey } : {}),
    answered: checked.answered,
    result: checked.result,
    time: now.toISOString(),
    ttl: retentionTtl(privacy, 'passRecords', now),
  };
}

/** A person's key as a terminal sent it, kept only when it names one of the company's people. */
export async function knownPerson(tenantId: string, personKey: string | undefined): Promise<{ personKey: string; kind: 'employee' | 'visitor' } | undefined> {
  if (!personKey) return undefined;
  const [employee, visitor] = await Promise.all([findPerson(tenantId, 'employee', personKey), findPerson(tenantId, 'visitor', personKey)]);
  const person = employee ?? visitor;
  return person ? { personKey: person.personKey, kind: person.kind } : undefined;
}

/** Results as the console shows them: the device's and the person's names as they are now. */
export async function resultItems(tenantId: string, results: readonly StoredResult[]): Promise<QuestionnaireResultItem[]> {
  const deviceKeys = [...new Set(results.map((r) => r.deviceKey))];
  const personKeys = [...new Set(results.flatMap((r) => (r.personKey ? [r.personKey] : [])))];
  const [devices, people, privacy] = await Promise.all([
    Promise.all(deviceKeys.map((k) => findDevice(tenantId, k))),
    Promise.all(personKeys.map(async (k) => (await findPerson(tenantId, 'employee', k)) ?? (await findPerson(tenantId, 'visitor', k)))),
    privacySettings(tenantId),
  ]);
  const deviceNames = new Map(deviceKeys.map((k, i) => [k, devices[i]?.name ?? null]));
  const persons = new Map(personKeys.map((k, i) => [k, people[i]]));
  return results.map((r) => {
    const person = r.personKey ? persons.get(r.personKey) : undefined;
    return {
      resultKey: resultKeyOf(r),
      questionnaireKey: r.questionnaireKey,
      title: r.title,
      revision: r.revision,
      answerTime: r.answeredAt,
      deviceKey: r.deviceKey,
      deviceName: deviceNames.get(r.deviceKey) ?? r.deviceKey,
      source: r.source,
      person: person
        ? { personKey: person.personKey, name: person.kind === 'visitor' && !privacy.saveVisitorName ? null : person.name, kind: person.kind }
        : null,
      answers: r.answered,
      result: r.result,
    };
  });
}
