import * as z from 'zod';
import {
  questionnaireBody,
  questionnaireKeyParams,
  questionnaireListQuery,
  questionnairePatchBody,
  questionnaireStateBody,
  resultExportBody,
  resultQuery,
  type QuestionnairePage,
  type QuestionnaireResultPage,
  checkTranslations,
  type QuestionnaireScope,
  type SurveyTranslations,
  questionnaireAnswer,
  questionnairePage,
  questionnaireResultPage,
} from '#contract/questionnaires';
import type { MessageId } from '#lib/i18n';
import { versionQuery } from '#contract/people';
import { exportJobParams, jobStarted, recordExportJob } from '#contract/passRecords';
import { allFaceTerminals, type Device } from '#data/devices';
import { listGroups } from '#data/groups';
import { recordFilterOf } from '#data/passRecordLists';
import { listResults } from '#data/questionnaireResults';
import {
  allQuestionnaires,
  createQuestionnaire,
  deleteQuestionnaire,
  requireQuestionnaire,
  setQuestionnaireState,
  updateQuestionnaire,
  type Questionnaire,
  type QuestionnaireInput,
} from '#data/questionnaires';
import { companyTimezone } from '#data/tenants';
import { NotFoundError, ValidationError, fieldError, type FieldIssue } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionRoute } from '#lib/http';
import { declareEnvironment } from '#lib/env';
import { exportJson, requireExport, startExport } from '#flows/exportJobs';
import { deliverQuestionnaires } from '#flows/questionnaireDelivery';
import { devicesInScope, questionnaireJson, resultItems } from '#views/questionnaireItems';
import { surveyHandlers } from './surveys.ts';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'CAPTURES_BUCKET',
  'CONSOLE_URL',
  'EVENTS_TABLE',
  'EXPORT_WORKER_FUNCTION',
  'IMPORTS_BUCKET',
  'IOT_DATA_ENDPOINT',
  'MAIL_FROM',
  'MAIL_WORKER_FUNCTION',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'PACKAGES_BUCKET',
  'PHOTOS_BUCKET',
  'RECORDINGS_BUCKET',
  'WEBHOOK_QUEUE_URL',
]);

/**
 * `/v1/questionnaires`: the company's surveys, their opening and closing, and their results; and
 * `/v1/surveys`, the public page behind a terminal's QR code (resources/surveys.ts).
 * Opening, closing and every change of an open survey write the surveys of each terminal that
 * gained or lost one into its shadow (views/questionnaireItems.ts).
 */

/** Each device of a scope must be one of the company's face terminals, each group one of its device groups. */
async function checkScope(tenantId: string, scope: QuestionnaireScope, fleet: readonly Device[]): Promise<void> {
  const issues: FieldIssue[] = [];
  const terminals = new Set(devicesInScope({ deviceKeys: scope.deviceKeys, groupKeys: [] }, fleet).map((d) => d.deviceKey));
  scope.deviceKeys.forEach((key, i) => {
    if (!terminals.has(key)) issues.push({ path: `scope.deviceKeys.${i}`, message: 'questionnaire.deviceMissing' });
  });
  if (scope.groupKeys.length > 0) {
    const groups = new Set((await listGroups(tenantId, 'device')).map((g) => g.groupKey));
    scope.groupKeys.forEach((key, i) => {
      if (!groups.has(key)) issues.push({ path: `scope.groupKeys.${i}`, message: 'questionnaire.groupMissing' });
    });
  }
  if (issues.length > 0) throw new ValidationError(issues);
}

const inputOf = (body: {
  title: string;
  mode: Questionnaire['mode'];
  displaySeconds: number;
  scope: QuestionnaireScope;
  questions: Questionnaire['questions'];
  translations: SurveyTranslations;
}): QuestionnaireInput => ({
  title: body.title,
  mode: body.mode,
  displaySeconds: body.displaySeconds,
  deviceKeys: [...new Set(body.scope.deviceKeys)],
  groupKeys: [...new Set(body.scope.groupKeys)],
  questions: body.questions,
  translations: body.translations,
});

/** The terminals whose surveys may differ after a change: those in the scope before and after. */
function touched(before: Questionnaire, after: Questionnaire, fleet: readonly Device[]): Set<string> {
  return new Set([...devicesInScope(before, fleet), ...devicesInScope(after, fleet)].map((d) => d.deviceKey));
}

async function resultFilterOf(
  tenantId: string,
  query: { from?: string | undefined; to?: string | undefined; deviceKey?: string | undefined; result?: 'normal' | 'abnormal' | undefined },
) {
  const range = recordFilterOf({ ...(query.from ? { from: query.from } : {}), ...(query.to ? { to: query.to } : {}) }, await companyTimezone(tenantId));
  return {
    fromIso: range.fromIso,
    toIso: range.toIso,
    ...(query.deviceKey ? { deviceKey: query.deviceKey } : {}),
    ...(query.result ? { result: query.result } : {}),
  };
}

export const questionnaires = defineResource('questionnaires', {
  'GET /v1/questionnaires': sessionRoute({
    answer: questionnairePage,
    query: questionnaireListQuery,
    async handle({ auth, query }) {
      const [all, fleet] = await Promise.all([allQuestionnaires(auth.tenantId), allFaceTerminals(auth.tenantId)]);
      const keyword = query.keyword?.toLowerCase();
      // Newest first; the company keeps at most QUESTIONNAIRE_LIMITS.perCompany, so one read serves every page.
      const filtered = all
        .filter((q) => (!query.state || q.state === query.state) && (!keyword || q.title.toLowerCase().includes(keyword)))
        .sort((a, b) => b.questionnaireKey.localeCompare(a.questionnaireKey));
      const start = query.cursor ? filtered.findIndex((q) => q.questionnaireKey < query.cursor!) : 0;
      const page = start < 0 ? [] : filtered.slice(start, start + query.pageSize);
      const more = start >= 0 && start + query.pageSize < filtered.length;
      const answer: QuestionnairePage = {
        items: page.map((q) => questionnaireJson(q, fleet)),
        nextCursor: more ? page.at(-1)!.questionnaireKey : null,
        total: filtered.length,
      };
      return ok(answer);
    },
  }),
  'POST /v1/questionnaires': sessionRoute({
    answer: questionnaireAnswer,
    body: questionnaireBody,
    async handle({ auth, body }) {
      const fleet = await allFaceTerminals(auth.tenantId);
      await checkScope(auth.tenantId, body.scope, fleet);
      return created(questionnaireJson(await createQuestionnaire(auth.tenantId, inputOf(body)), fleet));
    },
  }),
  'GET /v1/questionnaires/{questionnaireKey}': sessionRoute({
    answer: questionnaireAnswer,
    params: questionnaireKeyParams,
    async handle({ auth, params }) {
      const [q, fleet] = await Promise.all([requireQuestionnaire(auth.tenantId, params.questionnaireKey), allFaceTerminals(auth.tenantId)]);
      return ok(questionnaireJson(q, fleet));
    },
  }),
  'PATCH /v1/questionnaires/{questionnaireKey}': sessionRoute({
    answer: questionnaireAnswer,
    params: questionnaireKeyParams,
    body: questionnairePatchBody,
    async handle({ auth, params, body }) {
      const [current, fleet] = await Promise.all([requireQuestionnaire(auth.tenantId, params.questionnaireKey), allFaceTerminals(auth.tenantId)]);
      const merged = inputOf({
        title: body.title ?? current.title,
        mode: body.mode ?? current.mode,
        displaySeconds: body.displaySeconds ?? current.displaySeconds,
        scope: body.scope ?? { deviceKeys: current.deviceKeys, groupKeys: current.groupKeys },
        questions: body.questions ?? current.questions,
        translations: body.translations ?? current.translations ?? {},
      });
      // Translations kept from before must still fit questions that changed.
      const issues: FieldIssue[] = [];
      checkTranslations(merged.questions, merged.translations, {
        addIssue: (issue) => issues.push({ path: issue.path.join('.'), message: issue.message as MessageId }),
      });
      if (issues.length > 0) throw new ValidationError(issues);
      if (body.scope) await checkScope(auth.tenantId, body.scope, fleet);
      if (current.state === 'open' && devicesInScope(merged, fleet).length === 0) throw fieldError('scope', 'questionnaire.scopeEmpty');
      const next = await updateQuestionnaire(current, body.version, merged);
      if (next.state === 'open') await deliverQuestionnaires(auth.tenantId, touched(current, next, fleet));
      return created(questionnaireJson(next, fleet));
    },
  }),
  'DELETE /v1/questionnaires/{questionnaireKey}': sessionRoute({
    answer: z.null(),
    params: questionnaireKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      await deleteQuestionnaire(await requireQuestionnaire(auth.tenantId, params.questionnaireKey), query.version);
      return deleted();
    },
  }),
  'POST /v1/questionnaires/{questionnaireKey}/open': sessionRoute({
    answer: questionnaireAnswer,
    params: questionnaireKeyParams,
    body: questionnaireStateBody,
    async handle({ auth, params, body }) {
      const [current, fleet] = await Promise.all([requireQuestionnaire(auth.tenantId, params.questionnaireKey), allFaceTerminals(auth.tenantId)]);
      if (devicesInScope(current, fleet).length === 0) throw fieldError('scope', 'questionnaire.scopeEmpty');
      const next = await setQuestionnaireState(current, body.version, 'open');
      await deliverQuestionnaires(auth.tenantId, touched(current, next, fleet));
      return created(questionnaireJson(next, fleet));
    },
  }),
  'POST /v1/questionnaires/{questionnaireKey}/close': sessionRoute({
    answer: questionnaireAnswer,
    params: questionnaireKeyParams,
    body: questionnaireStateBody,
    async handle({ auth, params, body }) {
      const [current, fleet] = await Promise.all([requireQuestionnaire(auth.tenantId, params.questionnaireKey), allFaceTerminals(auth.tenantId)]);
      const next = await setQuestionnaireState(current, body.version, 'closed');
      await deliverQuestionnaires(auth.tenantId, touched(current, next, fleet));
      return created(questionnaireJson(next, fleet));
    },
  }),
  'GET /v1/questionnaires/{questionnaireKey}/results': sessionRoute({
    answer: questionnaireResultPage,
    params: questionnaireKeyParams,
    query: resultQuery,
    async handle({ auth, params, query }) {
      await requireQuestionnaire(auth.tenantId, params.questionnaireKey);
      const found = await listResults(auth.tenantId, params.questionnaireKey, await resultFilterOf(auth.tenantId, query), query.pageSize, query.cursor);
      const page: QuestionnaireResultPage = { items: await resultItems(auth.tenantId, found.items), nextCursor: found.nextCursor };
      return ok(page);
    },
  }),
  'POST /v1/questionnaires/{questionnaireKey}/results/exports': sessionRoute({
    answer: jobStarted,
    params: questionnaireKeyParams,
    body: resultExportBody,
    async handle({ auth, params, body, locale }) {
      return startExport(auth.tenantId, 'questionnaireResults', { ...body, questionnaireKey: params.questionnaireKey }, locale, async () => {
        await requireQuestionnaire(auth.tenantId, params.questionnaireKey);
        await resultFilterOf(auth.tenantId, body);
      });
    },
  }),
  'GET /v1/questionnaires/{questionnaireKey}/results/exports/{jobKey}': sessionRoute({
    answer: recordExportJob,
    params: questionnaireKeyParams.extend(exportJobParams.shape),
    async handle({ auth, params }) {
      const job = await requireExport(auth.tenantId, 'questionnaireResults', params.jobKey);
      if ((job.query as { questionnaireKey?: string }).questionnaireKey !== params.questionnaireKey) throw new NotFoundError();
      return ok(await exportJson(job));
    },
  }),
  ...surveyHandlers,
});

export const handler = questionnaires.handler;
