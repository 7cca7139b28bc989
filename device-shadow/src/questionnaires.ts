import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { DeviceDocument } from '@passcloud/functions/contract/shadow';
import {
  QUESTIONNAIRES_SHADOW_KEY,
  deviceQuestionnaires,
  questionnaireAnswerResult,
  questionnaireLink,
  type DeviceQuestionnaire,
  type QuestionnaireAnswerUp,
  type QuestionnaireLink,
} from '@passcloud/functions/contract/protocol';
import { SURVEY_TOKEN, type Answer, type QuestionnaireMode, type QuestionnaireResult, type SurveyForm } from '@passcloud/functions/contract/questionnaires';
import { CALL_ATTEMPTS, DeviceCallError, type DeviceAgent } from './agent.ts';
import { generateAnswers, type AskedQuestion } from './answers.ts';

export {
  SENTENCES,
  VISIT_SENTENCES,
  WELLBEING_SENTENCES,
  generateAnswers,
  sentencesFor,
  type AnswerOptions,
  type AskedQuestion,
  type GeneratedAnswers,
} from './answers.ts';

/**
 * The questionnaires (surveys) of a face terminal. The cloud names the open surveys in this
 * terminal's scope in its shadow (`state.desired.questionnaires`: `<questionnaireKey>.<revision>`
 * of each, comma-separated and sorted, or "" for none). When that value differs from what the
 * terminal shows, it reads them with `GET /v1/deviceSync/questionnaires` and reports the answer's
 * `token` back under the same key in `state.reported`.
 *
 * A person who passes is shown the open surveys, one after the other, for `displaySeconds` each.
 * A `screen` survey is answered on the terminal (`POST /v1/deviceSync/questionnaireAnswers`,
 * under the terminal's own `answerId`, so a resend is stored once); a `qr` survey shows a QR code
 * of a one-time link (`POST /v1/deviceSync/questionnaireLinks`) that the person opens on their
 * phone, a public page of the console that answers with the link's token alone
 * (`POST /v1/surveys/open`, `POST /v1/surveys/answers`). The simulated person plays the phone too.
 */

/** A survey as the terminal holds it (the answer of `GET /v1/deviceSync/questionnaires`, defaults filled in). */
export type ShownQuestionnaire = z.output<typeof deviceQuestionnaires>['items'][number];

// The shadow value

/**
 * Takes the questionnaires key out of a desired (or delta) document, so that what is left are
 * settings: the key is no setting and must not be logged as one the terminal ignored. A value of
 * the key that is not a string stays in `settings`, where it is reported as a value the terminal
 * could not apply.
 */
export function splitDesired(desired: DeviceDocument): { settings: DeviceDocument; questionnaires: string | undefined } {
  if (!(QUESTIONNAIRES_SHADOW_KEY in desired)) return { settings: desired, questionnaires: undefined };
  const { [QUESTIONNAIRES_SHADOW_KEY]: value, ...settings } = desired;
  return typeof value === 'string' ? { settings, questionnaires: value } : { settings: desired, questionnaires: undefined };
}

export interface ShadowEntry {
  questionnaireKey: string;
  revision: number;
}

const ENTRY = /^([0-9a-z]{8,32})\.([1-9]\d{0,8})$/;

/** The surveys a shadow value names, in its order; undefined when it is not such a value. "" names none. */
export function parseShadowValue(value: string): ShadowEntry[] | undefined {
  if (value === '') return [];
  const entries: ShadowEntry[] = [];
  for (const part of value.split(',')) {
    const match = ENTRY.exec(part);
    if (!match) return undefined;
    entries.push({ questionnaireKey: match[1]!, revision: Number(match[2]) });
  }
  return entries;
}

/** The shadow value that names these surveys: `<questionnaireKey>.<revision>` of each, sorted, comma-separated. */
export const shadowValueOf = (items: readonly ShadowEntry[]): string =>
  items
    .map((q) => `${q.questionnaireKey}.${q.revision}`)
    .sort()
    .join(',');

/** The token a QR link carries after `#` (what the phone's page sends); undefined when the URL carries none. */
export function surveyLinkToken(url: string): string | undefined {
  let hash: string;
  try {
    hash = new URL(url).hash.slice(1);
  } catch {
    return undefined;
  }
  let token: string;
  try {
    token = decodeURIComponent(hash);
  } catch {
    return undefined;
  }
  return SURVEY_TOKEN.test(token) ? token : undefined;
}

export const newAnswerId = (): string => `q${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;

// The terminal

/** How one survey went for one person. */
export interface SurveyOutcome {
  questionnaireKey: string;
  revision: number;
  mode: QuestionnaireMode;
  /** What the person answered and the result the terminal expects of it. */
  expected: QuestionnaireResult;
  /** Screen: the body sent to `POST /v1/deviceSync/questionnaireAnswers`. */
  sent?: QuestionnaireAnswerUp;
  /** Screen: the cloud's answer (`stored` or `duplicate`, and the result it found). */
  stored?: z.output<typeof questionnaireAnswerResult>;
  /** QR: the link the terminal showed, the form the phone opened and what it sent. */
  link?: QuestionnaireLink;
  form?: SurveyForm;
  phone?: { token: string; answers: Answer[] };
  /** QR: the `data` of the cloud's answer to `POST /v1/surveys/answers`. */
  phoneAnswer?: unknown;
  /** Why it did not go through: the HTTP status (0 for no answer) and `data.reason`. */
  error?: { status: number; reason?: string; message: string };
}

export interface SurveyRequest {
  /** The person the terminal recognised; absent for a stranger. QR answers are anonymous whatever it is. */
  personKey?: string | undefined;
  /** Choose an alarm option (when the survey has one), so the result is abnormal. */
  abnormal: boolean;
  random?: () => number;
  /** When the person answered (ms); now unless told. */
  at?: number;
}

/** How often the terminal tries again to read its surveys, or to send answers that got no answer. */
const RETRY_MS = 30_000;
/** How many outcomes the terminal remembers. */
const REMEMBERED = 200;

export class QuestionnaireBoard {
  /** The surveys the terminal shows now, oldest first. */
  items: ShownQuestionnaire[] = [];
  /** The value it shows (reported back under QUESTIONNAIRES_SHADOW_KEY); undefined until the first read. */
  token?: string;
  /** The value the shadow asks for last. */
  private wanted?: string;
  private running?: Promise<void>;
  private again = false;
  private timer?: NodeJS.Timeout;
  /** Screen answers that got no answer after every attempt, by answerId: sent again, unchanged, until the cloud takes or refuses them. */
  private readonly unsent = new Map<string, QuestionnaireAnswerUp>();
  /** Set while reading the surveys fails. */
  lastError?: string;
  /** The latest outcomes, oldest first (the last REMEMBERED). */
  readonly outcomes: SurveyOutcome[] = [];
  /** Answers the cloud stored, by the result it found, and answers that did not go through. */
  readonly counts = { normal: 0, abnormal: 0, duplicate: 0, failed: 0 };

  constructor(
    private readonly agent: DeviceAgent,
    /** Reports the value shown now in `state.reported`. */
    private readonly report: (value: string) => void,
  ) {}

  /** Screen answers waiting to be sent again. */
  get pending(): number {
    return this.unsent.size;
  }

  /**
   * The shadow's value arrived (delta, or `get/accepted` on connecting). A value other than the
   * one shown is read; the one shown is reported again, so `reported` catches up after a reset.
   */
  onDesired(value: string): void {
    this.wanted = value;
    if (value === this.token && !this.running) return this.report(value);
    void this.sync();
  }

  onConnect(): void {
    void this.resend();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Shows no survey, without reading or reporting: the shadow names none. */
  showNone(): void {
    this.items = [];
    this.token = undefined;
    this.wanted = undefined;
  }

  /** Forgets the surveys, as a new binding does: the next shadow value is read afresh. */
  clear(): void {
    this.items = [];
    this.token = undefined;
    this.wanted = undefined;
    this.unsent.clear();
  }

  /** Reads the surveys and reports the token. One read at a time; a change during a read makes it go round once more. */
  sync(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          await this.read();
        } while (this.again);
        this.lastError = undefined;
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
        this.agent.write('warn', 'questionnairesFailed', { error: this.lastError.slice(0, 500) });
        this.retryLater();
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  private async read(): Promise<void> {
    if (!this.agent.binding) return;
    const answer = await this.agent.call<unknown>('GET', '/v1/deviceSync/questionnaires');
    // Checked against the contract: an answer that is not the list changes nothing.
    const { items, token } = deviceQuestionnaires.parse(answer);
    const before = this.token;
    this.items = items;
    this.token = token;
    if (token !== shadowValueOf(items))
      this.agent.write('warn', 'other', {}, `questionnaires token "${token}" does not name the surveys read (${shadowValueOf(items)})`.slice(0, 1000));
    if (token !== before) {
      this.agent.write('info', 'questionnairesShown', {
        count: items.length,
        ...(items.length ? { titles: items.slice(0, 20).map((q) => q.title.slice(0, 200)) } : {}),
      });
    }
    this.report(token);
  }

  private retryLater(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      if (!this.agent.connected) return;
      if (this.wanted !== undefined && this.wanted !== this.token) void this.sync();
      void this.resend();
    }, RETRY_MS);
    this.timer.unref();
  }

  /**
   * One person at the terminal answers every survey shown, one after the other: a screen survey
   * on the terminal, a QR survey on their phone through a fresh link. Answers what happened with
   * each (nothing when no survey is shown).
   */
  async answerAll(request: SurveyRequest): Promise<SurveyOutcome[]> {
    const outcomes: SurveyOutcome[] = [];
    for (const questionnaire of [...this.items]) outcomes.push(await this.answerOne(questionnaire, request));
    return outcomes;
  }

  /** One survey, answered by one person. */
  async answerOne(questionnaire: ShownQuestionnaire | DeviceQuestionnaire, request: SurveyRequest): Promise<SurveyOutcome> {
    const outcome = questionnaire.mode === 'screen' ? await this.onScreen(questionnaire, request) : await this.onPhone(questionnaire, request);
    this.outcomes.push(outcome);
    if (this.outcomes.length > REMEMBERED) this.outcomes.shift();
    return outcome;
  }

  private async onScreen(questionnaire: ShownQuestionnaire | DeviceQuestionnaire, request: SurveyRequest): Promise<SurveyOutcome> {
    const { questionnaireKey, revision } = questionnaire;
    const { answers, result } = generateAnswers(questionnaire.questions, { abnormal: request.abnormal, ...(request.random ? { random: request.random } : {}) });
    const sent: QuestionnaireAnswerUp = {
      answerId: newAnswerId(),
      questionnaireKey,
      revision,
      answeredAt: request.at ?? Date.now(),
      ...(request.personKey ? { personKey: request.personKey } : {}),
      answers,
    };
    const outcome: SurveyOutcome = { questionnaireKey, revision, mode: 'screen', expected: result, sent };
    try {
      outcome.stored = await this.send(sent);
    } catch (error) {
      outcome.error = failureOf(error);
      // Kept to send again (same answerId, so the cloud stores it once) when there was no answer worth acting on.
      if (error instanceof DeviceCallError && error.retryable) {
        this.unsent.set(sent.answerId, sent);
        this.retryLater();
      }
    }
    return outcome;
  }

  /** Sends one screen answer and counts what the cloud made of it; a refusal is logged and the surveys read again. */
  private async send(body: QuestionnaireAnswerUp): Promise<z.output<typeof questionnaireAnswerResult>> {
    try {
      const stored = questionnaireAnswerResult.parse(await this.agent.call<unknown>('POST', '/v1/deviceSync/questionnaireAnswers', body));
      if (stored.stored === 'duplicate') this.counts.duplicate++;
      else this.counts[stored.result]++;
      return stored;
    } catch (error) {
      this.counts.failed++;
      if (error instanceof DeviceCallError && !error.retryable) {
        this.agent.write('warn', 'answerRefused', { id: body.answerId, error: error.message.slice(0, 500) });
        // The survey closed, changed or left this terminal's scope: what is shown is out of date.
        if (error.status === 409) void this.sync();
      }
      throw error;
    }
  }

  /** Sends again the screen answers that got no answer. */
  async resend(): Promise<void> {
    for (const [answerId, body] of [...this.unsent]) {
      if (!this.agent.binding) return;
      try {
        await this.send(body);
        this.unsent.delete(answerId);
      } catch (error) {
        if (!(error instanceof DeviceCallError && error.retryable)) this.unsent.delete(answerId);
        else return this.retryLater();
      }
    }
  }

  private async onPhone(questionnaire: ShownQuestionnaire | DeviceQuestionnaire, request: SurveyRequest): Promise<SurveyOutcome> {
    const { questionnaireKey, revision } = questionnaire;
    const outcome: SurveyOutcome = { questionnaireKey, revision, mode: 'qr', expected: 'normal' };
    try {
      const link = questionnaireLink.parse(await this.agent.call<unknown>('POST', '/v1/deviceSync/questionnaireLinks', { questionnaireKey }));
      outcome.link = link;
      const token = surveyLinkToken(link.url);
      if (!token) throw new Error(`the link ${link.url} carries no survey token after #`);
      // The phone opens the console's page; the page calls the API on its own origin.
      const form = await publicCall<SurveyForm>(new URL('/v1/surveys/open', link.url), { token }, this.agent.options.retryBaseMs);
      outcome.form = form;
      // The person knows which answers are bad news; the page may not say which options raise the alarm, the terminal's copy does.
      const asked = sameQuestions(form.questions, questionnaire.questions) ? questionnaire.questions : form.questions;
      const { answers, result } = generateAnswers(asked, { abnormal: request.abnormal, ...(request.random ? { random: request.random } : {}) });
      outcome.expected = result;
      outcome.phone = { token, answers };
      outcome.phoneAnswer = await publicCall<unknown>(new URL('/v1/surveys/answers', link.url), { token, answers }, this.agent.options.retryBaseMs);
      this.counts[result]++;
    } catch (error) {
      this.counts.failed++;
      outcome.error = failureOf(error);
    }
    return outcome;
  }
}

/** The same questions, as far as answering goes: the same types and numbers of options, in the same order. */
const sameQuestions = (a: readonly AskedQuestion[], b: readonly AskedQuestion[]): boolean =>
  a.length === b.length && a.every((q, i) => q.type === b[i]!.type && (q.options ?? []).length === (b[i]!.options ?? []).length);

function failureOf(error: unknown): NonNullable<SurveyOutcome['error']> {
  if (error instanceof DeviceCallError) return { status: error.status, ...(error.reason ? { reason: error.reason } : {}), message: error.message };
  return { status: 0, message: error instanceof Error ? error.message : String(error) };
}

/**
 * A call of the public survey page, as a phone makes it: no credentials, JSON in, the envelope's
 * `data` out. No answer, a 429 and a 5xx are tried again (CALL_ATTEMPTS in all, waits doubling
 * from `retryBaseMs` with jitter); anything else throws a DeviceCallError with `data.reason`.
 */
export async function publicCall<T>(url: URL, body: unknown, retryBaseMs = 1000): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    let failure: DeviceCallError;
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await response.text();
      let envelope: { code?: unknown; message?: unknown; data?: unknown } | undefined;
      try {
        envelope = JSON.parse(text) as typeof envelope;
      } catch {
        envelope = undefined;
      }
      const code = typeof envelope?.code === 'number' ? envelope.code : undefined;
      if (response.ok && code !== undefined && code < 300) return envelope!.data as T;
      const status = code !== undefined && code >= 400 ? code : response.status;
      const reason = (envelope?.data as { reason?: unknown } | null | undefined)?.reason;
      const message = typeof envelope?.message === 'string' ? `: ${envelope.message}` : ' without the envelope';
      failure = new DeviceCallError(
        `POST ${url.pathname} answered ${status}${message}`,
        status,
        response.status === 429 || response.status >= 500 || status === 429,
        typeof reason === 'string' ? reason : undefined,
      );
    } catch (error) {
      failure = new DeviceCallError(`POST ${url.pathname}: no answer (${error instanceof Error ? error.message : String(error)})`, 0, true);
    }
    if (!failure.retryable || attempt >= CALL_ATTEMPTS) throw failure;
    await new Promise((resolve) => setTimeout(resolve, retryBaseMs * 2 ** (attempt - 1) * (0.5 + Math.random())));
  }
}
