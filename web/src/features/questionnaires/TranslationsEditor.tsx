import { ActionIcon, Badge, Group, Paper, Select, SimpleGrid, Stack, Text, TextInput, Textarea, Title } from '@mantine/core';
import { modals } from '@mantine/modals';
import { IconLanguage, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { QUESTIONNAIRE_LIMITS, type Question, type QuestionType, type SurveyTranslations } from '@passcloud/functions/contract/questionnaires';
import { formatNumber } from '../../app/format.ts';
import { LOCALES, LOCALE_NAMES, type Locale } from '../../app/locales.ts';
import type { Form, QuestionValues } from './questionnaireValues.ts';
import { ErrorText } from './parts.tsx';

/** One question of a translation: its text, and one text per option of the survey's own question (none for free text). */
export interface TranslatedQuestionValues {
  text: string;
  options: { text: string }[];
}

/** The survey in one language: always one entry per question and per option of the survey's own, in the same order. */
export interface TranslationValues {
  title: string;
  questions: TranslatedQuestionValues[];
}

/** The translations being edited, by locale, in the order they were added. */
export type TranslationsValues = Partial<Record<Locale, TranslationValues>>;

/** The languages added, in the order the editor shows them. */
export const translationLocales = (translations: TranslationsValues): Locale[] =>
  Object.keys(translations).filter((locale): locale is Locale => (LOCALES as readonly string[]).includes(locale));

/** A question's translation before anything is typed: an empty text per option (none for a free-text question). */
export const blankTranslatedQuestion = (question: { type: QuestionType; options: readonly unknown[] }): TranslatedQuestionValues => ({
  text: '',
  options: question.type === 'text' ? [] : question.options.map(() => ({ text: '' })),
});

/** The saved translations in the editor's shape, fitted to the questions (the server keeps them aligned). */
export function translationValuesOf(translations: SurveyTranslations, questions: readonly Question[]): TranslationsValues {
  const values: TranslationsValues = {};
  for (const [locale, translation] of Object.entries(translations) as [Locale, SurveyTranslations[Locale]][]) {
    if (!translation) continue;
    values[locale] = {
      title: translation.title,
      questions: questions.map((question, i) => ({
        text: translation.questions[i]?.text ?? '',
        options: question.options.map((_, j) => ({ text: translation.questions[i]?.options[j] ?? '' })),
      })),
    };
  }
  return values;
}

/** What the API takes: `{}` when the survey has no other language. */
export function translationsBody(translations: TranslationsValues, questions: readonly QuestionValues[]): SurveyTranslations {
  const body: SurveyTranslations = {};
  for (const locale of translationLocales(translations)) {
    const translation = translations[locale]!;
    body[locale] = {
      title: translation.title.trim(),
      questions: translation.questions.map((q, i) => ({
        text: q.text.trim(),
        options: questions[i]?.type === 'text' ? [] : q.options.map((o) => o.text.trim()),
      })),
    };
  }
  return body;
}

/** Did anyone type in this translation? Removing it then asks first. */
const typed = (translation: TranslationValues | undefined): boolean =>
  !!translation && (!!translation.title.trim() || translation.questions.some((q) => q.text.trim() || q.options.some((o) => o.text.trim())));

/**
 * Every text of an added language is required, as the server requires it: the rules of each
 * locale the editor may hold (those not added have no value and are skipped).
 */
export function translationRules(required: (value: string) => string | null) {
  const rule = { title: required, questions: { text: required, options: { text: required } } };
  return Object.fromEntries(LOCALES.map((locale) => [locale, rule])) as Partial<Record<Locale, typeof rule>>;
}

/**
 * The form field of a server issue under `translations`: `translations.ja_JP.questions.2.options.1`
 * is that option's input, `translations.ja_JP.questions.2.options` the question's options (their
 * count), `translations.ja_JP.questions` the language's card (the count of questions), and a
 * language the editor does not hold the section itself.
 */
export function translationIssueField(path: string, locales: readonly string[]): string | undefined {
  const match = /^translations(?:\.([^.]+)(?:\.(.+))?)?$/.exec(path);
  if (!match) return undefined;
  const [, locale, rest] = match;
  if (!locale || !locales.includes(locale)) return 'translations';
  const at = `translations.${locale}`;
  if (!rest) return at;
  if (rest === 'title' || rest.startsWith('title.')) return `${at}.title`;
  const option = /^questions\.(\d+)\.options\.(\d+)/.exec(rest);
  if (option) return `${at}.questions.${option[1]}.options.${option[2]}.text`;
  const question = /^questions\.(\d+)(?:\.(text|options))?/.exec(rest);
  if (question) return `${at}.questions.${question[1]}.${question[2] ?? 'text'}`;
  return rest.startsWith('questions') ? `${at}.questions` : at;
}

/**
 * The survey in other languages: a card per language added, with the title, each question's text
 * and each option's text to translate, the survey's own text shown with each; a language is added
 * from the list of the console's languages, and removed after a confirmation when anything was typed.
 */
export function TranslationsSection({ form }: { form: Form }) {
  const { t } = useLingui();
  const locales = translationLocales(form.values.translations);
  const choices = LOCALES.filter((locale) => !locales.includes(locale)).map((locale) => ({ value: locale, label: LOCALE_NAMES[locale] }));

  const add = (locale: Locale) => {
    const values = form.getValues();
    form.setFieldValue('translations', { ...values.translations, [locale]: { title: '', questions: values.questions.map(blankTranslatedQuestion) } });
    form.clearFieldError('translations');
  };

  const remove = (locale: Locale) => {
    const drop = () => {
      const rest = { ...form.getValues().translations };
      delete rest[locale];
      form.setFieldValue('translations', rest);
      const at = `translations.${locale}`;
      form.setErrors((errors) => Object.fromEntries(Object.entries(errors).filter(([path]) => path !== at && !path.startsWith(`${at}.`))));
    };
    if (!typed(form.getValues().translations[locale])) {
      drop();
      return;
    }
    const language = LOCALE_NAMES[locale];
    modals.openConfirmModal({
      title: t`Remove ${language}`,
      children: <Text size="sm">{t`Remove the ${language} translation of this survey? The texts typed for it are lost.`}</Text>,
      labels: { confirm: t`Remove`, cancel: t`Cancel` },
      confirmProps: { color: 'red', 'data-testid': 'confirm-remove-translation' } as never,
      onConfirm: drop,
    });
  };

  return (
    <Stack gap="sm" data-testid="translations">
      <Title order={4} size="h5">
        <Trans>Translations</Trans>
      </Title>
      <Text size="xs" c="dimmed">
        <Trans>
          The survey in other languages: people who use the terminal or the survey page in one of them read these texts. Every text is required; answers and
          results keep the survey's own texts.
        </Trans>
      </Text>
      {locales.map((locale) => (
        <TranslationCard key={locale} locale={locale} form={form} onRemove={() => remove(locale)} />
      ))}
      {form.errors.translations && <ErrorText testId="translations-error">{form.errors.translations}</ErrorText>}
      <Group>
        <Select
          aria-label={t`Add a language`}
          placeholder={t`Add a language`}
          data={choices}
          value={null}
          onChange={(value) => value && add(value as Locale)}
          disabled={choices.length === 0}
          leftSection={<IconLanguage size={16} />}
          w={240}
          data-testid="translation-add"
        />
      </Group>
    </Stack>
  );
}

/** What the translator translates: the survey's own text, or a dash while it is still empty. */
const source = (text: string): string => text.trim() || '—';

function TranslationCard({ locale, form, onRemove }: { locale: Locale; form: Form; onRemove: () => void }) {
  const { t } = useLingui();
  const values = form.values;
  const translation = values.translations[locale];
  if (!translation) return null;
  const language = LOCALE_NAMES[locale];
  const at = `translations.${locale}` as const;
  const cardError = form.errors[at] ?? form.errors[`${at}.questions`];
  return (
    <Paper withBorder radius="md" p="sm" data-testid="translation" data-locale={locale}>
      <Stack gap="xs">
        <Group justify="space-between" wrap="nowrap">
          <Badge variant="light" radius="sm" tt="none" leftSection={<IconLanguage size={12} />}>
            {language}
          </Badge>
          <ActionIcon variant="subtle" color="red" aria-label={t`Remove ${language}`} onClick={onRemove} data-testid="translation-remove">
            <IconTrash size={16} />
          </ActionIcon>
        </Group>
        {cardError && <ErrorText>{cardError}</ErrorText>}
        <TextInput
          label={t`Title`}
          description={source(values.title)}
          required
          maxLength={QUESTIONNAIRE_LIMITS.title}
          {...form.getInputProps(`${at}.title`)}
          data-testid="translation-title"
        />
        {values.questions.map((question, i) => {
          const translated = translation.questions[i];
          if (!translated) return null;
          const number = formatNumber(i + 1);
          const optionsError = form.errors[`${at}.questions.${i}.options`];
          return (
            <Stack key={question.id} gap={6} data-testid="translation-question" data-index={i}>
              <Textarea
                label={t`Question ${number}`}
                description={source(question.text)}
                required
                autosize
                minRows={1}
                maxLength={QUESTIONNAIRE_LIMITS.questionText}
                {...form.getInputProps(`${at}.questions.${i}.text`)}
                data-testid="translation-question-text"
              />
              {question.type !== 'text' && translated.options.length > 0 && (
                <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing="xs" pl="md">
                  {question.options.map((option, j) => {
                    const optionNumber = formatNumber(j + 1);
                    return (
                      <TextInput
                        key={option.id}
                        aria-label={t`Option ${optionNumber}`}
                        description={source(option.text)}
                        size="xs"
                        maxLength={QUESTIONNAIRE_LIMITS.optionText}
                        {...form.getInputProps(`${at}.questions.${i}.options.${j}.text`)}
                        data-testid="translation-option-text"
                      />
                    );
                  })}
                </SimpleGrid>
              )}
              {optionsError && <ErrorText pl="md">{optionsError}</ErrorText>}
            </Stack>
          );
        })}
      </Stack>
    </Paper>
  );
}
