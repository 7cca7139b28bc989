import * as z from 'zod';
import { itemKey } from './fields.ts';
import { LOCALES, type Locale } from './locales.ts';

/**
 * Questionnaires (`/v1/questionnaires`): surveys a company puts to people at its face terminals,
 * such as a health declaration before entering a site. A survey is shown on the terminal's own
 * screen, or the terminal shows a QR code that opens a public page of the console
 * (`/survey#<token>`) where the person answers on their phone.
 *
 * A survey reaches the terminals in its scope (its devices and the devices of its device groups)
 * while it is open. Editing the questions of a survey that has been opened makes a new revision;
 * each result keeps the revision it answered, with the questions as they were then.
 */

export const QUESTION_TYPES = ['single', 'multiple', 'text'] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
export const QUESTIONNAIRE_MODES = ['screen', 'qr'] as const;
export type QuestionnaireMode = (typeof QUESTIONNAIRE_MODES)[number];
export const QUESTIONNAIRE_STATES = ['open', 'closed'] as const;
export type QuestionnaireState = (typeof QUESTIONNAIRE_STATES)[number];
export const QUESTIONNAIRE_RESULTS = ['normal', 'abnormal'] as const;
export type QuestionnaireResult = (typeof QUESTIONNAIRE_RESULTS)[number];
/** Where an answer came from: the terminal's screen, or a phone that scanned the terminal's QR code. */
export const ANSWER_SOURCES = ['screen', 'qr'] as const;
export type AnswerSource = (typeof ANSWER_SOURCES)[number];

export const QUESTIONNAIRE_LIMITS = {
  title: 100,
  questions: 30,
  questionText: 200,
  options: 10,
  optionText: 100,
  answerText: 500,
  displaySecondsMax: 600,
  scopeDevices: 200,
  scopeGroups: 50,
  /** Surveys a company keeps. */
  perCompany: 200,
  /** Surveys open at once in a company: what keeps a terminal's share of its shadow small. */
  open: 10,
} as const;

/** How long the link behind a terminal's QR code lets one person answer. */
export const SURVEY_LINK_SECONDS = 15 * 60;

const key = itemKey;
const day = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'issue.dateFormat' });

export const questionOption = z
  .object({
    text: z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.optionText),
    /** Choosing it makes the result abnormal. */
    alarm: z.boolean().default(false),
  })
  .strict();

export const question = z
  .object({
    text: z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.questionText),
    type: z.enum(QUESTION_TYPES),
    mandatory: z.boolean().default(false),
    /** The choices of a single or multiple choice question; a free-text question has none. */
    options: z.array(questionOption).max(QUESTIONNAIRE_LIMITS.options).default([]),
  })
  .strict()
  .superRefine((q, ctx) => {
    if (q.type !== 'text' && q.options.length === 0) ctx.addIssue({ code: 'custom', message: 'questionnaire.optionsRequired', path: ['options'] });
    if (q.type === 'text' && q.options.length > 0) ctx.addIssue({ code: 'custom', message: 'questionnaire.textNoOptions', path: ['options'] });
  });
export type Question = z.output<typeof question>;

export const questionnaireScope = z
  .object({
    deviceKeys: z.array(key).max(QUESTIONNAIRE_LIMITS.scopeDevices).default([]),
    groupKeys: z.array(key).max(QUESTIONNAIRE_LIMITS.scopeGroups).default([]),
  })
  .strict();
export type QuestionnaireScope = z.output<typeof questionnaireScope>;

/**
 * The survey in another language: its title, and each question's text and options' texts in the
 * order of the survey's own. A person who picks that language on the terminal or the phone page
 * reads these; answers are the same option indexes whatever the language, and results keep the
 * survey's own texts.
 */
export const surveyTranslation = z
  .object({
    title: z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.title),
    questions: z
      .array(
        z
          .object({
            text: z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.questionText),
            options: z.array(z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.optionText)).max(QUESTIONNAIRE_LIMITS.options),
          })
          .strict(),
      )
      .max(QUESTIONNAIRE_LIMITS.questions),
  })
  .strict();
export type SurveyTranslation = z.output<typeof surveyTranslation>;
export const surveyTranslations = z.partialRecord(z.enum(LOCALES), surveyTranslation);
export type SurveyTranslations = Partial<Record<Locale, SurveyTranslation>>;

/** Each translation has one text per question and per option of the survey's own (422 naming the first that differs). */
export function checkTranslations(
  questions: readonly { options: readonly unknown[] }[],
  translations: SurveyTranslations,
  ctx: { addIssue(issue: { code: 'custom'; message: string; path: (string | number)[] }): void },
): void {
  for (const [locale, translation] of Object.entries(translations)) {
    if (!translation) continue;
    if (translation.questions.length !== questions.length) {
      ctx.addIssue({ code: 'custom', message: 'questionnaire.translationQuestions', path: ['translations', locale, 'questions'] });
      continue;
    }
    translation.questions.forEach((q, i) => {
      if (q.options.length !== questions[i]!.options.length)
        ctx.addIssue({ code: 'custom', message: 'questionnaire.translationOptions', path: ['translations', locale, 'questions', i, 'options'] });
    });
  }
}

const fields = {
  title: z.string().trim().min(1).max(QUESTIONNAIRE_LIMITS.title),
  mode: z.enum(QUESTIONNAIRE_MODES),
  /** How long the terminal shows the survey (or its QR code) to a person, in seconds. */
  displaySeconds: z.number().int().min(1).max(QUESTIONNAIRE_LIMITS.displaySecondsMax),
  scope: questionnaireScope,
  questions: z.array(question).min(1, { message: 'questionnaire.questionsRequired' }).max(QUESTIONNAIRE_LIMITS.questions),
  /** The survey in other languages (none: everyone reads the survey's own texts). */
  translations: surveyTranslations,
};

/** `POST /v1/questionnaires`: a new survey, closed until opened. */
export const questionnaireBody = z
  .object({ ...fields, translations: fields.translations.default({}) })
  .strict()
  .superRefine((body, ctx) => checkTranslations(body.questions, body.translations, ctx));
export type QuestionnaireBody = z.output<typeof questionnaireBody>;
/** `PATCH /v1/questionnaires/{questionnaireKey}`: any of the fields, with the `version` last read. */
export const questionnairePatchBody = z
  .object({ ...fields, version: z.number().int().min(1) })
  .partial()
  .required({ version: true })
  .strict();
export type QuestionnairePatchBody = z.output<typeof questionnairePatchBody>;
/** `POST .../open` and `.../close`. */
export const questionnaireStateBody = z.object({ version: z.number().int().min(1) }).strict();

export const questionnaireKeyParams = z.object({ questionnaireKey: key });
export const questionnaireListQuery = z
  .object({
    keyword: z.string().trim().max(64).optional(),
    state: z.enum(QUESTIONNAIRE_STATES).optional(),
    pageSize: z.coerce.number().int().min(1).max(200).default(20),
    cursor: z
      .string()
      .regex(/^[0-9a-z]{8,32}$/, { message: 'error.badCursor' })
      .optional(),
  })
  .strict();

const questionnaireItem = z.object({
  questionnaireKey: z.string(),
  title: z.string(),
  mode: z.enum(QUESTIONNAIRE_MODES),
  displaySeconds: z.number().int(),
  scope: questionnaireScope,
  questions: z.array(question),
  translations: surveyTranslations,
  state: z.enum(QUESTIONNAIRE_STATES),
  revision: z.number().int().min(1).meta({ description: 'The revision terminals show now; it grows when the questions of a survey that was opened change' }),
  deviceCount: z.number().int().min(0).meta({ description: 'Face terminals the scope covers now' }),
  openTime: z.iso.datetime().nullable(),
  closeTime: z.iso.datetime().nullable(),
  createTime: z.iso.datetime(),
  updateTime: z.iso.datetime(),
  version: z.number().int().min(1),
});
export type QuestionnaireItem = z.output<typeof questionnaireItem>;
/** `GET|POST|PATCH /v1/questionnaires/{questionnaireKey}`, open and close: the questionnaire as it stands. */
export const questionnaireAnswer = questionnaireItem;

/** `GET /v1/questionnaires`. */
export const questionnairePage = z.object({ items: z.array(questionnaireItem), nextCursor: z.string().nullable(), total: z.number().int().min(0) });
export type QuestionnairePage = z.output<typeof questionnairePage>;

// Answers

/**
 * One answer per question, in the order of the revision's questions: the indexes of the chosen
 * options (one for `single`), the text for `text`, or null for a question left unanswered.
 */
export const answer = z.union([
  z
    .object({
      choices: z
        .array(
          z
            .number()
            .int()
            .min(0)
            .max(QUESTIONNAIRE_LIMITS.options - 1),
        )
        .max(QUESTIONNAIRE_LIMITS.options),
    })
    .strict(),
  z.object({ text: z.string().trim().max(QUESTIONNAIRE_LIMITS.answerText) }).strict(),
  z.null(),
]);
export type Answer = z.output<typeof answer>;
export const answers = z.array(answer).min(1).max(QUESTIONNAIRE_LIMITS.questions);

/** One question of a result, as it was asked and answered. */
const answeredQuestion = z.object({
  question: z.string(),
  type: z.enum(QUESTION_TYPES),
  choices: z.array(z.string()).meta({ description: 'The chosen options’ texts' }),
  text: z.string().nullable().meta({ description: 'The answer to a free-text question' }),
  alarm: z.boolean().meta({ description: 'A chosen option raised the alarm' }),
});
export type AnsweredQuestion = z.output<typeof answeredQuestion>;

const questionnaireResultItem = z.object({
  resultKey: z.string(),
  questionnaireKey: z.string(),
  title: z.string(),
  revision: z.number().int().min(1),
  answerTime: z.iso.datetime(),
  deviceKey: z.string(),
  deviceName: z.string(),
  source: z.enum(ANSWER_SOURCES),
  person: z
    .object({ personKey: z.string(), name: z.string().nullable(), kind: z.enum(['employee', 'visitor']) })
    .nullable()
    .meta({ description: 'The person the terminal recognised; null when anonymous (a QR answer, or a stranger)' }),
  answers: z.array(answeredQuestion),
  result: z.enum(QUESTIONNAIRE_RESULTS),
});
export type QuestionnaireResultItem = z.output<typeof questionnaireResultItem>;

const resultFilter = z.object({
  from: day.optional(),
  to: day.optional(),
  result: z.enum(QUESTIONNAIRE_RESULTS).optional(),
  deviceKey: key.optional(),
});
const rangeInOrder = (q: { from?: string | undefined; to?: string | undefined }) => !q.from || !q.to || q.from <= q.to;

/** `GET /v1/questionnaires/{questionnaireKey}/results`: company days as for pass records (both default to today), newest first. */
export const resultQuery = resultFilter
  .extend({ pageSize: z.coerce.number().int().min(1).max(200).default(20), cursor: z.string().max(500).optional() })
  .strict()
  .refine(rangeInOrder, { message: 'records.rangeOrder', path: ['to'] });
export type ResultQuery = z.output<typeof resultQuery>;
/** `POST /v1/questionnaires/{questionnaireKey}/results/exports`: the list's filter. */
export const resultExportBody = resultFilter.strict().refine(rangeInOrder, { message: 'records.rangeOrder', path: ['to'] });
export type ResultFilterQuery = z.output<typeof resultExportBody>;

/** `GET /v1/questionnaires/{questionnaireKey}/results`. */
export const questionnaireResultPage = z.object({ items: z.array(questionnaireResultItem), nextCursor: z.string().nullable() });
export type QuestionnaireResultPage = z.output<typeof questionnaireResultPage>;

// The public page behind a terminal's QR code

/** `<tenantId>.<linkId>.<secret>`: what the QR code's link carries after `#`. */
export const SURVEY_TOKEN = /^[0-9a-z]{8,32}\.[0-9a-z]{8,32}\.[A-Za-z0-9_-]{43}$/;
export const surveyToken = z.string().regex(SURVEY_TOKEN, { message: 'survey.linkInvalid' });

/** `POST /v1/surveys/open`: what the page shows. */
export const surveyOpenBody = z.object({ token: surveyToken }).strict();
/** `POST /v1/surveys/answers`: the person's answers; the link then stops working. */
export const surveyAnswerBody = z.object({ token: surveyToken, answers }).strict();

/**
 * Why a link is refused, in `data.reason` beside the translated message: 404 `invalid` (no such
 * link, or a forged one), 409 `expired`, `used` (answered already) or `closed` (the survey closed,
 * or the terminal left its scope).
 */
export const SURVEY_REFUSALS = ['invalid', 'expired', 'used', 'closed'] as const;
export type SurveyRefusal = (typeof SURVEY_REFUSALS)[number];

/** `POST /v1/surveys/open`: what the phone page shows. */
export const surveyForm = z.object({
  title: z.string(),
  questions: z.array(question),
  translations: surveyTranslations.meta({ description: 'The survey in other languages: the page shows the one of the reader’s language when there is one' }),
  deviceName: z.string().meta({ description: 'Where the terminal is, for the person to recognise it' }),
  expiresAt: z.iso.datetime(),
});
export type SurveyForm = z.output<typeof surveyForm>;
