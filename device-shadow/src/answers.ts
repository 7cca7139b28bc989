import { QUESTIONNAIRE_LIMITS, type Answer, type QuestionType, type QuestionnaireResult } from '@passcloud/functions/contract/questionnaires';

/**
 * What a simulated person answers to a questionnaire (device-shadow/questionnaires.ts shows the
 * surveys and sends the answers): answers that fit each question's type, options and meaning.
 */

/** What answer generation needs of a question: its type, whether it must be answered, and its options (their texts, when known, make the answers fit). */
export interface AskedQuestion {
  type: QuestionType;
  text?: string | undefined;
  mandatory?: boolean | undefined;
  options?: { text?: string | undefined; alarm?: boolean | undefined }[] | undefined;
}

/** What people type when asked how they are, or anything else. */
export const WELLBEING_SENTENCES = [
  'All fine, thank you.',
  'No symptoms today.',
  'Feeling well.',
  'Back from a trip last week, no problems.',
  'Nothing to declare.',
  'Slight cold last week, fully recovered.',
] as const;
/** What visitors type when asked whom they visit, or why they came. */
export const VISIT_SENTENCES = [
  'Here for a meeting with the facilities team.',
  'Delivering parcels to the front desk.',
  'Visiting the Engineering department.',
  'Maintenance of the ventilation on floor 2.',
] as const;
/** Short answers people type into a free-text question. */
export const SENTENCES = [...WELLBEING_SENTENCES, ...VISIT_SENTENCES] as const;

/** A question about a visit (whom, why), in the console's languages. */
const ABOUT_A_VISIT = /visit|whom|purpose|拜访|拜訪|来访|來訪|訪問|来訪|방문|besuch|visite|visita|kunjung|посещ/i;
/** The sentences that answer a free-text question. */
export const sentencesFor = (question: string | undefined): readonly string[] =>
  question && ABOUT_A_VISIT.test(question) ? VISIT_SENTENCES : WELLBEING_SENTENCES;
/** An option saying that none of the others apply ("None of these"): never ticked together with another. */
const NONE_OF_THESE = /^(none|nothing)\b|以上都没有|以上皆無|以上都沒有|いずれもない|해당 없음|^keine|^aucun|^ninguno|^nessuno|^tidak ada|^ничего|^никаки/i;

export interface AnswerOptions {
  /** Make the result abnormal: one question that has an alarm option gets one (when the survey has any). */
  abnormal: boolean;
  random?: () => number;
  /** Share of optional questions that are answered (default 0.7). */
  optionalShare?: number;
}

export interface GeneratedAnswers {
  /** One entry per question, in order: `{ choices }`, `{ text }`, or null for an optional question left out. */
  answers: Answer[];
  /** The result the cloud is to find: abnormal exactly when a chosen option raises the alarm. */
  result: QuestionnaireResult;
}

const pick = <T>(items: readonly T[], random: () => number): T => items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;

/** `count` distinct items of `items` in ascending order. */
function some(items: readonly number[], count: number, random: () => number): number[] {
  const left = [...items];
  const chosen: number[] = [];
  while (chosen.length < count && left.length > 0) chosen.push(left.splice(Math.floor(random() * left.length) % left.length, 1)[0]!);
  return chosen.sort((a, b) => a - b);
}

/**
 * Plausible answers of one person: every mandatory question is answered, an optional one at
 * `optionalShare`; a `single` question gets exactly one option, a `multiple` one one to three (an
 * option saying none of the others apply only on its own), a `text` question a short sentence that
 * fits it (a visit's purpose when it asks about the visit). Alarm options are avoided unless
 * `abnormal` (then one question that has an alarm option, chosen at random, gets one) or a
 * mandatory question offers nothing else.
 */
export function generateAnswers(questions: readonly AskedQuestion[], options: AnswerOptions): GeneratedAnswers {
  const random = options.random ?? Math.random;
  const optionalShare = options.optionalShare ?? 0.7;
  const indexes = (q: AskedQuestion, alarm: boolean) => (q.options ?? []).flatMap((o, i) => (!!o.alarm === alarm ? [i] : []));
  const alarming = questions.flatMap((q, i) => (q.type !== 'text' && indexes(q, true).length > 0 ? [i] : []));
  const target = options.abnormal && alarming.length > 0 ? pick(alarming, random) : undefined;
  let alarm = false;
  const answers = questions.map((q, i): Answer => {
    if (q.type === 'text')
      return q.mandatory || random() < optionalShare ? { text: pick(sentencesFor(q.text), random).slice(0, QUESTIONNAIRE_LIMITS.answerText) } : null;
    const safe = indexes(q, false);
    const alarms = indexes(q, true);
    const alone = (q.options ?? []).flatMap((o, n) => (q.type === 'multiple' && o.text && NONE_OF_THESE.test(o.text.trim()) ? [n] : []));
    const besides = safe.filter((n) => !alone.includes(n));
    let choices: number[];
    if (i === target) {
      choices = [pick(alarms, random)];
      // Someone ticking several boxes may tick a harmless one besides.
      if (q.type === 'multiple' && besides.length > 0 && random() < 0.5) choices = [...choices, pick(besides, random)].sort((a, b) => a - b);
    } else {
      if (!q.mandatory && random() >= optionalShare) return null;
      const from = safe.length > 0 ? safe : alarms;
      if (from.length === 0 || (!q.mandatory && safe.length === 0)) return null;
      const several = from.filter((n) => !alone.includes(n));
      const only = from.filter((n) => alone.includes(n));
      if (q.type === 'single') choices = [pick(from, random)];
      else if (only.length > 0 && (several.length === 0 || random() < 0.5)) choices = [pick(only, random)];
      else choices = some(several, 1 + Math.floor(random() * Math.min(3, several.length)), random);
    }
    if (choices.some((c) => alarms.includes(c))) alarm = true;
    return { choices };
  });
  return { answers, result: alarm ? 'abnormal' : 'normal' };
}
