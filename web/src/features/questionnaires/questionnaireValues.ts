import type { UseFormReturnType } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import type { QuestionType, QuestionnaireBody, QuestionnaireMode } from '@passcloud/functions/contract/questionnaires';
import type { QuestionnaireItem } from './api.ts';
import {
  blankTranslatedQuestion,
  translationIssueField,
  translationLocales,
  translationValuesOf,
  translationsBody,
  type TranslationsValues,
} from './TranslationsEditor.tsx';

/** The survey form's values, how they come from a saved survey and go back to the API, and the edits to its questions. */

interface OptionValues {
  /** The row's React key: options move. */
  id: string;
  text: string;
  alarm: boolean;
}

export interface QuestionValues {
  id: string;
  text: string;
  type: QuestionType;
  mandatory: boolean;
  options: OptionValues[];
}

export interface Values {
  title: string;
  mode: QuestionnaireMode;
  displaySeconds: number | string;
  deviceKeys: string[];
  groupKeys: string[];
  questions: QuestionValues[];
  /** The survey in other languages, aligned with `questions` whatever the editor does to them. */
  translations: TranslationsValues;
}

const DEFAULT_SECONDS = 30;

export const blankOption = (): OptionValues => ({ id: randomId(), text: '', alarm: false });
export const blankQuestion = (): QuestionValues => ({ id: randomId(), text: '', type: 'single', mandatory: true, options: [blankOption(), blankOption()] });

export function valuesOf(item: QuestionnaireItem | undefined): Values {
  if (!item)
    return { title: '', mode: 'screen', displaySeconds: DEFAULT_SECONDS, deviceKeys: [], groupKeys: [], questions: [blankQuestion()], translations: {} };
  return {
    title: item.title,
    mode: item.mode,
    displaySeconds: item.displaySeconds,
    deviceKeys: item.scope.deviceKeys,
    groupKeys: item.scope.groupKeys,
    questions: item.questions.map((q) => ({
      id: randomId(),
      text: q.text,
      type: q.type,
      mandatory: q.mandatory,
      options: q.options.map((o) => ({ id: randomId(), ...o })),
    })),
    translations: translationValuesOf(item.translations ?? {}, item.questions),
  };
}

export function bodyOf(values: Values): QuestionnaireBody {
  return {
    title: values.title.trim(),
    mode: values.mode,
    displaySeconds: Number(values.displaySeconds),
    scope: { deviceKeys: values.deviceKeys, groupKeys: values.groupKeys },
    questions: values.questions.map((q) => ({
      text: q.text.trim(),
      type: q.type,
      mandatory: q.mandatory,
      options: q.type === 'text' ? [] : q.options.map((o) => ({ text: o.text.trim(), alarm: o.alarm })),
    })),
    translations: translationsBody(values.translations, values.questions),
  };
}

/**
 * The form field a server issue belongs to: `scope.deviceKeys.3` is the devices field,
 * `questions.0.options.1` that option's text, `translations.ja_JP.questions.0.options.1` that
 * option's text in the Japanese card (`locales`: the languages the form holds); undefined for a
 * path the form does not show.
 */
export function issueField(path: string, locales: readonly string[] = []): string | undefined {
  if (path === 'translations' || path.startsWith('translations.')) return translationIssueField(path, locales);
  if (path === 'scope' || path.startsWith('scope.deviceKeys')) return 'deviceKeys';
  if (path.startsWith('scope.groupKeys')) return 'groupKeys';
  const option = /^questions\.(\d+)\.options\.(\d+)/.exec(path);
  if (option) return `questions.${option[1]}.options.${option[2]}.text`;
  const question = /^questions\.(\d+)(?:\.(text|type|mandatory|options))?/.exec(path);
  if (question) return `questions.${question[1]}.${question[2] ?? 'text'}`;
  const top = path.split('.')[0]!;
  return ['title', 'mode', 'displaySeconds', 'questions'].includes(top) ? top : undefined;
}

export type Form = UseFormReturnType<Values>;

/** The changes to the questions and their options, which the form makes to the translations as well. */
export interface QuestionEdits {
  add(): void;
  move(from: number, to: number): void;
  remove(index: number): void;
  setType(index: number, type: QuestionType): void;
  addOption(index: number): void;
  moveOption(index: number, from: number, to: number): void;
  removeOption(index: number, option: number): void;
}

/**
 * The edits of the questions and their options on the form. Every change to the questions and
 * their options is made to each translation too, so that each keeps one text per question and per
 * option, in the same order.
 */
export function questionEdits(form: Form): QuestionEdits {
  const translated = () => translationLocales(form.getValues().translations);
  return {
    add: () => {
      const question = blankQuestion();
      form.insertListItem('questions', question);
      for (const locale of translated()) form.insertListItem(`translations.${locale}.questions`, blankTranslatedQuestion(question));
      form.clearFieldError('questions');
    },
    move: (from, to) => {
      form.reorderListItem('questions', { from, to });
      for (const locale of translated()) form.reorderListItem(`translations.${locale}.questions`, { from, to });
    },
    remove: (i) => {
      form.removeListItem('questions', i);
      for (const locale of translated()) form.removeListItem(`translations.${locale}.questions`, i);
    },
    setType: (i, type) => {
      const question = form.getValues().questions[i]!;
      form.setFieldValue(`questions.${i}.type`, type);
      const options = type === 'text' ? [] : question.options.length === 0 ? [blankOption(), blankOption()] : undefined;
      if (options) {
        form.setFieldValue(`questions.${i}.options`, options);
        for (const locale of translated())
          form.setFieldValue(
            `translations.${locale}.questions.${i}.options`,
            options.map(() => ({ text: '' })),
          );
      }
      form.clearFieldError(`questions.${i}.options`);
    },
    addOption: (i) => {
      form.insertListItem(`questions.${i}.options`, blankOption());
      for (const locale of translated()) form.insertListItem(`translations.${locale}.questions.${i}.options`, { text: '' });
      form.clearFieldError(`questions.${i}.options`);
    },
    moveOption: (i, from, to) => {
      form.reorderListItem(`questions.${i}.options`, { from, to });
      for (const locale of translated()) form.reorderListItem(`translations.${locale}.questions.${i}.options`, { from, to });
    },
    removeOption: (i, j) => {
      form.removeListItem(`questions.${i}.options`, j);
      for (const locale of translated()) form.removeListItem(`translations.${locale}.questions.${i}.options`, j);
    },
  };
}
