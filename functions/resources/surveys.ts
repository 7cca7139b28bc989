import * as z from 'zod';
import { surveyAnswerBody, surveyForm, surveyOpenBody, type SurveyForm, type SurveyRefusal } from '#contract/questionnaires';
import { findDevice } from '#data/devices';
import { countAttempt, refundAttempt } from '#data/identity';
import { findQuestionnaire, type Questionnaire } from '#data/questionnaires';
import { findLink, storeLinkResult, type SurveyLink } from '#data/questionnaireResults';
import { safeEqualText, sha256 } from '#lib/crypto';
import { AppError } from '#lib/errors';
import { created, ok, publicRoute } from '#lib/http';
import type { MessageId } from '#lib/i18n';
import { raiseAbnormal } from '#flows/questionnaireAlerts';
import { questionsOf, resultOf, surveyForDevice } from '#views/questionnaireItems';

/**
 * `/v1/surveys`: the public page behind a terminal's QR code (`/survey#<token>` in the console).
 * The token is the only credential: `<tenantId>.<linkId>.<secret>`, of which the cloud keeps the
 * secret's hash only. A link works once, until it expires, for the terminal and survey it was
 * made for, while that survey is open and the terminal in its scope.
 */

const REFUSALS: Record<SurveyRefusal, { status: number; message: MessageId }> = {
  invalid: { status: 404, message: 'survey.linkInvalid' },
  expired: { status: 409, message: 'survey.linkExpired' },
  used: { status: 409, message: 'survey.linkUsed' },
  closed: { status: 409, message: 'survey.closed' },
};
const refuse = (reason: SurveyRefusal): AppError => new AppError(REFUSALS[reason].status, REFUSALS[reason].message, {}, { reason });

/**
 * The link a token names, or a refusal: forged and unknown tokens alike are `invalid`. Each try is
 * counted against the caller's address before the token is looked up, and given back when the
 * token names a link, so guessing is throttled (429) and parallel guesses cannot pass the limit.
 */
async function linkOf(token: string, sourceIp: string, now = Date.now()): Promise<SurveyLink> {
  await countAttempt('surveyLinks', sourceIp);
  const [tenantId, linkId, secret] = token.split('.') as [string, string, string];
  const link = await findLink(tenantId, linkId);
  if (!link || !safeEqualText(link.secretHash, sha256(secret))) throw refuse('invalid');
  await refundAttempt('surveyLinks', sourceIp);
  if (link.usedAt) throw refuse('used');
  if (link.expiresAt <= now) throw refuse('expired');
  return link;
}

/** The survey a link is for, while it is open and its terminal in its scope. */
async function surveyOf(link: SurveyLink): Promise<Questionnaire> {
  const [q, device] = await Promise.all([findQuestionnaire(link.tenantId, link.questionnaireKey), findDevice(link.tenantId, link.deviceKey)]);
  try {
    return await surveyForDevice(q, device);
  } catch {
    throw refuse('closed');
  }
}

/** The public routes, served by the questionnaires function (resources/questionnaires.ts). */
export const surveyHandlers = {
  'POST /v1/surveys/open': publicRoute({
    answer: surveyForm,
    body: surveyOpenBody,
    async handle({ body, sourceIp }) {
      const link = await linkOf(body.token, sourceIp);
      const survey = await surveyOf(link);
      const [{ title, questions, translations }, device] = await Promise.all([questionsOf(survey, link.revision), findDevice(link.tenantId, link.deviceKey)]);
      const form: SurveyForm = { title, questions, translations, deviceName: device?.name ?? '', expiresAt: new Date(link.expiresAt).toISOString() };
      return ok(form);
    },
  }),
  'POST /v1/surveys/answers': publicRoute({
    answer: z.null(),
    body: surveyAnswerBody,
    async handle({ body, sourceIp }) {
      const link = await linkOf(body.token, sourceIp);
      const survey = await surveyOf(link);
      const result = await resultOf(survey, link.revision, body.answers, { deviceKey: link.deviceKey, source: 'qr', answeredAt: new Date() });
      if (!(await storeLinkResult(link, result))) {
        // Another answer used the link first, or it expired meanwhile: say which; nothing was stored.
        await linkOf(body.token, sourceIp);
        throw refuse('used');
      }
      await raiseAbnormal(result);
      return created(null);
    },
  }),
} as const;
