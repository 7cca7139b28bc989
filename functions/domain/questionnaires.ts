import type { Answer, AnsweredQuestion, Question, QuestionnaireResult } from '#contract/questionnaires';

/**
 * Checking one person's answers against the questions they were asked, and the result they make:
 * `abnormal` when any chosen option raises the alarm, else `normal`.
 */
export interface AnswerIssue {
  path: string;
  message:
    'questionnaire.answerCount' | 'questionnaire.answerRequired' | 'questionnaire.oneChoice' | 'questionnaire.choiceUnknown' | 'questionnaire.answerType';
}

export interface CheckedAnswers {
  issues: AnswerIssue[];
  answered: AnsweredQuestion[];
  result: QuestionnaireResult;
}

const isEmpty = (a: Answer): boolean => a === null || ('choices' in a ? a.choices.length === 0 : a.text.trim() === '');

export function checkAnswers(questions: readonly Question[], answers: readonly Answer[]): CheckedAnswers {
  const issues: AnswerIssue[] = [];
  if (answers.length !== questions.length) return { issues: [{ path: 'answers', message: 'questionnaire.answerCount' }], answered: [], result: 'normal' };
  const answered: AnsweredQuestion[] = questions.map((q, i) => {
    const a = answers[i] ?? null;
    const path = `answers.${i}`;
    const entry: AnsweredQuestion = { question: q.text, type: q.type, choices: [], text: null, alarm: false };
    if (isEmpty(a)) {
      if (q.mandatory) issues.push({ path, message: 'questionnaire.answerRequired' });
      return entry;
    }
    if (q.type === 'text') {
      if (!a || !('text' in a)) issues.push({ path, message: 'questionnaire.answerType' });
      else entry.text = a.text.trim();
      return entry;
    }
    if (!a || !('choices' in a)) {
      issues.push({ path, message: 'questionnaire.answerType' });
      return entry;
    }
    const chosen = [...new Set(a.choices)].sort((x, y) => x - y);
    if (q.type === 'single' && chosen.length > 1) issues.push({ path, message: 'questionnaire.oneChoice' });
    if (chosen.some((c) => c >= q.options.length)) {
      issues.push({ path, message: 'questionnaire.choiceUnknown' });
      return entry;
    }
    entry.choices = chosen.map((c) => q.options[c]!.text);
    entry.alarm = chosen.some((c) => q.options[c]!.alarm);
    return entry;
  });
  return { issues, answered, result: answered.some((a) => a.alarm) ? 'abnormal' : 'normal' };
}

/** The shadow value naming the surveys a terminal shows: `<key>.<revision>` of each, sorted, comma-separated. */
export const surveysToken = (surveys: readonly { questionnaireKey: string; revision: number }[]): string =>
  surveys
    .map((s) => `${s.questionnaireKey}.${s.revision}`)
    .sort()
    .join(',');

/** Whether a terminal (by its key and device group) is in a survey's scope. */
export const inScope = (
  scope: { deviceKeys: readonly string[]; groupKeys: readonly string[] },
  device: { deviceKey: string; groupKey?: string | undefined },
): boolean => scope.deviceKeys.includes(device.deviceKey) || (!!device.groupKey && scope.groupKeys.includes(device.groupKey));
