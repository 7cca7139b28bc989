import { useRef, useState, type RefObject } from 'react';
import {
  ActionIcon,
  Alert,
  Badge,
  Button,
  Drawer,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { randomId } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import { IconAlarm, IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  QUESTIONNAIRE_LIMITS,
  QUESTIONNAIRE_MODES,
  QUESTION_TYPES,
  type QuestionType,
  type QuestionnaireBody,
  type QuestionnaireMode,
} from '@passcloud/functions/contract/questionnaires';
import { api, notifySuccess, toast } from '../../app/api.ts';
import { formatNumber } from '../../app/format.ts';
import { pickDevices, pickGroups } from '../../app/pickers.ts';
import { invalidate } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { confirmDiscard } from '../settings/AccountCreatePage.tsx';
import { QUESTIONNAIRES_PATH, RESOURCE, questionnairePath, useQuestionnaireLabels, type QuestionnaireItem } from './api.ts';
import {
  TranslationsSection,
  blankTranslatedQuestion,
  translationIssueField,
  translationLocales,
  translationRules,
  translationValuesOf,
  translationsBody,
  type TranslationsValues,
} from './TranslationsEditor.tsx';

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

interface Values {
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

const blankOption = (): OptionValues => ({ id: randomId(), text: '', alarm: false });
const blankQuestion = (): QuestionValues => ({ id: randomId(), text: '', type: 'single', mandatory: true, options: [blankOption(), blankOption()] });

function valuesOf(item: QuestionnaireItem | undefined): Values {
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

function bodyOf(values: Values): QuestionnaireBody {
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

/**
 * A survey in a drawer over the list: its title, how the terminal shows it, for how long, which
 * terminals (devices, and the devices of device groups), its questions with their options, and
 * its texts in other languages. A survey that has been opened keeps its answers with the revision
 * they answered: changing its title, questions or translations makes the next revision, which the
 * drawer says before it is saved.
 */
export function QuestionnaireDrawer({ editing, onClose }: { editing: QuestionnaireItem | 'new' | null; onClose: () => void }) {
  const { t } = useLingui();
  // The drawer's own close (its button, Escape) asks before dropping changes, as Cancel does.
  const close = useRef(onClose);
  return (
    <Drawer
      opened={!!editing}
      onClose={() => close.current()}
      position="right"
      size={760}
      title={<Text fw={600}>{editing === 'new' ? t`New survey` : t`Edit survey`}</Text>}
      closeButtonProps={{ 'aria-label': t`Close` }}
      closeOnClickOutside={false}
      data-testid="questionnaire-drawer"
    >
      {editing && (
        <QuestionnaireForm
          key={editing === 'new' ? 'new' : `${editing.questionnaireKey}-${editing.version}`}
          item={editing === 'new' ? undefined : editing}
          onDone={onClose}
          closeRef={close}
        />
      )}
    </Drawer>
  );
}

function QuestionnaireForm({ item: initial, onDone, closeRef }: { item?: QuestionnaireItem; onDone: () => void; closeRef: RefObject<() => void> }) {
  const { t } = useLingui();
  const labels = useQuestionnaireLabels();
  const [item, setItem] = useState(initial);
  const [saving, setSaving] = useState(false);
  const [stale, setStale] = useState(false);
  const devices = useQuery({ queryKey: ['pickers', 'devices'], queryFn: () => pickDevices(Infinity, { silent: true, quiet: true }) });
  const groups = useQuery({ queryKey: ['pickers', 'groups', 'device'], queryFn: () => pickGroups('device', { silent: true, quiet: true }) });
  const limits = QUESTIONNAIRE_LIMITS;
  const required = (value: string) => (value.trim() ? null : t`Required`);
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: valuesOf(item),
    validate: {
      title: required,
      displaySeconds: (value) => {
        const n = Number(value);
        return value !== '' && Number.isInteger(n) && n >= 1 && n <= limits.displaySecondsMax ? null : t`Enter from 1 to ${limits.displaySecondsMax} seconds`;
      },
      questions: {
        text: required,
        options: {
          text: (value, values, path) => {
            const question = values.questions[Number(path.split('.')[1])];
            return question?.type === 'text' ? null : required(value);
          },
        },
      },
      translations: translationRules(required),
    },
  });

  // Choice questions need options; the field names the question that has none.
  const validateOptions = (values: Values): boolean => {
    let ok = true;
    values.questions.forEach((q, i) => {
      if (q.type !== 'text' && q.options.length === 0) {
        form.setFieldError(`questions.${i}.options`, t`Add at least one option`);
        ok = false;
      }
    });
    return ok;
  };

  const close = () => confirmDiscard(form.isDirty(), onDone, { discard: t`Discard changes`, text: t`Close this survey without saving?`, cancel: t`Cancel` });
  closeRef.current = close;

  // A drawer full of questions scrolls: the first field in error comes into view.
  const formElement = useRef<HTMLFormElement>(null);
  const showFirstError = () =>
    requestAnimationFrame(() => formElement.current?.querySelector('[aria-invalid="true"], [data-error-text]')?.scrollIntoView({ block: 'center' }));

  const reload = async () => {
    if (!item) return;
    try {
      const fresh = await api.get<QuestionnaireItem>(questionnairePath(item.questionnaireKey));
      setItem(fresh);
      const values = valuesOf(fresh);
      form.setInitialValues(values);
      form.setValues(values);
      form.resetDirty(values);
      form.clearErrors();
      setStale(false);
    } catch {
      // The request client has shown why.
    }
  };

  const submit = form.onSubmit(async (values) => {
    if (!validateOptions(values)) {
      showFirstError();
      return;
    }
    setSaving(true);
    try {
      const body = bodyOf(values);
      if (item) await api.patch(questionnairePath(item.questionnaireKey), { ...body, version: item.version }, { silent: true });
      else await api.post(QUESTIONNAIRES_PATH, body, { silent: true });
      notifySuccess(item ? t`Survey saved` : t`Survey created`);
      await invalidate(RESOURCE);
      form.resetDirty();
      onDone();
    } catch (error) {
      if (!(error instanceof RequestError)) throw error;
      const issues: Record<string, string> = {};
      const elsewhere: string[] = [];
      const locales = translationLocales(values.translations);
      for (const issue of error.issues) {
        const field = issueField(issue.path, locales);
        if (field) issues[field] ??= issue.message;
        else elsewhere.push(issue.message);
      }
      if (error.status === 409 && !error.issues.length && item) setStale(true);
      else {
        form.setErrors(issues);
        if (Object.keys(issues).length) showFirstError();
        else toast(elsewhere[0] ?? error.message);
      }
    } finally {
      setSaving(false);
    }
  }, showFirstError);

  // Every change to the questions and their options is made to each translation too, so that
  // each keeps one text per question and per option, in the same order.
  const translated = () => translationLocales(form.getValues().translations);
  const edit: QuestionEdits = {
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

  const deviceChoices = (devices.data ?? []).map((d) => ({ value: d.deviceKey, label: d.name }));
  // A device or group the picker did not list (removed since) still shows as chosen, by its key.
  for (const key of form.values.deviceKeys) if (!deviceChoices.some((c) => c.value === key)) deviceChoices.push({ value: key, label: key });
  const groupChoices = (groups.data ?? []).map((g) => ({ value: g.groupKey, label: g.name }));
  for (const key of form.values.groupKeys) if (!groupChoices.some((c) => c.value === key)) groupChoices.push({ value: key, label: key });

  const questions = form.values.questions;
  const everOpened = !!item?.openTime;
  const revision = formatNumber(item?.revision ?? 1);
  const nextRevision = formatNumber((item?.revision ?? 1) + 1);
  const questionCount = formatNumber(questions.length);
  const questionLimit = formatNumber(limits.questions);

  return (
    <form ref={formElement} onSubmit={submit} noValidate data-testid="questionnaire-form">
      <Stack gap="lg">
        {stale && <StaleNotice onReload={() => void reload()} testId="questionnaire-stale" />}
        {item && (
          <Alert color={everOpened ? 'blue' : 'gray'} variant="light" data-testid="questionnaire-revision">
            <Text size="sm">
              {everOpened ? (
                <Trans>
                  This survey is at revision {revision}. Changing what terminals show (its title, questions, translations, mode or display time) makes revision{' '}
                  {nextRevision}; answers already given keep the revision they answered.
                </Trans>
              ) : (
                <Trans>This survey has not been opened yet: changes replace revision {revision}.</Trans>
              )}
            </Text>
          </Alert>
        )}

        <TextInput label={t`Title`} required maxLength={limits.title} {...form.getInputProps('title')} data-testid="questionnaire-title" />
        <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              <Trans>How it is answered</Trans>
            </Text>
            <SegmentedControl
              data={QUESTIONNAIRE_MODES.map((value) => ({ value, label: labels.mode[value] }))}
              {...form.getInputProps('mode')}
              data-testid="questionnaire-mode"
            />
            <Text size="xs" c="dimmed">
              {form.values.mode === 'screen' ? (
                <Trans>People answer on the terminal's screen after it recognises them.</Trans>
              ) : (
                <Trans>The terminal shows a QR code; people answer on their phone, anonymously.</Trans>
              )}
            </Text>
            {form.errors.mode && (
              <Text size="xs" c="red" data-error-text>
                {form.errors.mode}
              </Text>
            )}
          </Stack>
          <NumberInput
            label={t`Display time (seconds)`}
            description={t`How long the terminal shows the survey or its QR code.`}
            required
            min={1}
            max={limits.displaySecondsMax}
            allowDecimal={false}
            allowNegative={false}
            clampBehavior="none"
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            {...form.getInputProps('displaySeconds')}
            data-testid="questionnaire-seconds"
          />
        </SimpleGrid>

        <Stack gap="xs">
          <Title order={4} size="h5">
            <Trans>Scope</Trans>
          </Title>
          <Text size="xs" c="dimmed">
            <Trans>The face terminals that show the survey while it is open: the devices chosen here and the devices of the groups chosen.</Trans>
          </Text>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <MultiSelect
              label={t`Devices`}
              placeholder={devices.isPending ? t`Loading…` : devices.isError ? t`The devices could not be listed` : t`Choose devices`}
              searchable
              clearable
              hidePickedOptions
              maxValues={limits.scopeDevices}
              data={deviceChoices}
              nothingFoundMessage={t`No device matches`}
              {...form.getInputProps('deviceKeys')}
              data-testid="questionnaire-devices"
            />
            <MultiSelect
              label={t`Device groups`}
              placeholder={groups.isPending ? t`Loading…` : groups.isError ? t`The device groups could not be listed` : t`Choose device groups`}
              searchable
              clearable
              hidePickedOptions
              maxValues={limits.scopeGroups}
              data={groupChoices}
              nothingFoundMessage={t`No group matches`}
              {...form.getInputProps('groupKeys')}
              data-testid="questionnaire-groups"
            />
          </SimpleGrid>
        </Stack>

        <Stack gap="sm">
          <Group justify="space-between">
            <Title order={4} size="h5">
              <Trans>Questions</Trans>
            </Title>
            <Text size="xs" c="dimmed">
              <Trans>
                {questionCount} of {questionLimit}
              </Trans>
            </Text>
          </Group>
          {questions.map((question, i) => (
            <QuestionEditor key={question.id} index={i} count={questions.length} form={form} edit={edit} />
          ))}
          {form.errors.questions && (
            <Text size="xs" c="red" data-error-text data-testid="questionnaire-questions-error">
              {form.errors.questions}
            </Text>
          )}
          <Group>
            <Button
              variant="light"
              leftSection={<IconPlus size={16} />}
              disabled={questions.length >= limits.questions}
              onClick={edit.add}
              data-testid="question-add"
            >
              <Trans>Add a question</Trans>
            </Button>
          </Group>
        </Stack>

        <TranslationsSection form={form} />

        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={close} data-testid="questionnaire-cancel">
            <Trans>Cancel</Trans>
          </Button>
          <Button type="submit" loading={saving} disabled={stale} data-testid="questionnaire-submit">
            {item ? <Trans>Save</Trans> : <Trans>Create</Trans>}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

export type Form = UseFormReturnType<Values>;

/** The changes to the questions and their options, which the form makes to the translations as well. */
interface QuestionEdits {
  add(): void;
  move(from: number, to: number): void;
  remove(index: number): void;
  setType(index: number, type: QuestionType): void;
  addOption(index: number): void;
  moveOption(index: number, from: number, to: number): void;
  removeOption(index: number, option: number): void;
}

/** One question: its text, type and mandatory switch, its options (none for free text), and where it stands among the others. */
function QuestionEditor({ index: i, count, form, edit }: { index: number; count: number; form: Form; edit: QuestionEdits }) {
  const { t } = useLingui();
  const labels = useQuestionnaireLabels();
  const question = form.values.questions[i]!;
  const number = formatNumber(i + 1);
  const name = t`Question ${number}`;
  const optionsError = form.errors[`questions.${i}.options`];
  return (
    <Paper withBorder radius="md" p="md" data-testid="question" data-index={i}>
      <Stack gap="sm">
        <Group justify="space-between" wrap="nowrap">
          <Badge variant="light" radius="sm" tt="none">
            {name}
          </Badge>
          <Group gap={4} wrap="nowrap">
            <ActionIcon variant="subtle" aria-label={t`Move ${name} up`} disabled={i === 0} onClick={() => edit.move(i, i - 1)} data-testid="question-up">
              <IconArrowUp size={16} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              aria-label={t`Move ${name} down`}
              disabled={i === count - 1}
              onClick={() => edit.move(i, i + 1)}
              data-testid="question-down"
            >
              <IconArrowDown size={16} />
            </ActionIcon>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={t`Remove ${name}`}
              disabled={count === 1}
              onClick={() => edit.remove(i)}
              data-testid="question-remove"
            >
              <IconTrash size={16} />
            </ActionIcon>
          </Group>
        </Group>
        <Textarea
          label={t`Question`}
          required
          autosize
          minRows={1}
          maxLength={QUESTIONNAIRE_LIMITS.questionText}
          {...form.getInputProps(`questions.${i}.text`)}
          data-testid="question-text"
        />
        <Group gap="md" align="flex-end" wrap="wrap">
          <Select
            label={t`Type`}
            data={QUESTION_TYPES.map((value) => ({ value, label: labels.type[value] }))}
            allowDeselect={false}
            value={question.type}
            onChange={(value) => value && edit.setType(i, value as QuestionType)}
            error={form.errors[`questions.${i}.type`]}
            w={200}
            data-testid="question-type"
          />
          <Switch label={t`Mandatory`} {...form.getInputProps(`questions.${i}.mandatory`, { type: 'checkbox' })} mb={8} data-testid="question-mandatory" />
        </Group>
        {question.type === 'text' ? (
          <Text size="xs" c="dimmed">
            <Trans>People answer in their own words; a free-text answer never raises the alarm.</Trans>
          </Text>
        ) : (
          <Stack gap="xs">
            <Text size="sm" fw={500}>
              <Trans>Options</Trans>
            </Text>
            {question.options.map((option, j) => {
              const optionNumber = formatNumber(j + 1);
              const optionName = t`Option ${optionNumber}`;
              return (
                <Group key={option.id} gap="xs" align="flex-start" wrap="nowrap" data-testid="option">
                  <TextInput
                    aria-label={optionName}
                    placeholder={optionName}
                    maxLength={QUESTIONNAIRE_LIMITS.optionText}
                    style={{ flex: 1 }}
                    {...form.getInputProps(`questions.${i}.options.${j}.text`)}
                    data-testid="option-text"
                  />
                  <Tooltip label={t`Choosing it makes the result abnormal and raises an alert`} multiline w={240}>
                    <Switch
                      label={
                        <Group gap={4} wrap="nowrap">
                          <IconAlarm size={14} />
                          <Trans>Alarm when selected</Trans>
                        </Group>
                      }
                      color="red"
                      mt={8}
                      {...form.getInputProps(`questions.${i}.options.${j}.alarm`, { type: 'checkbox' })}
                      data-testid="option-alarm"
                    />
                  </Tooltip>
                  <Group gap={2} wrap="nowrap" mt={4}>
                    <ActionIcon variant="subtle" aria-label={t`Move ${optionName} up`} disabled={j === 0} onClick={() => edit.moveOption(i, j, j - 1)}>
                      <IconArrowUp size={14} />
                    </ActionIcon>
                    <ActionIcon
                      variant="subtle"
                      aria-label={t`Move ${optionName} down`}
                      disabled={j === question.options.length - 1}
                      onClick={() => edit.moveOption(i, j, j + 1)}
                    >
                      <IconArrowDown size={14} />
                    </ActionIcon>
                    <ActionIcon
                      variant="subtle"
                      color="red"
                      aria-label={t`Remove ${optionName}`}
                      onClick={() => edit.removeOption(i, j)}
                      data-testid="option-remove"
                    >
                      <IconTrash size={14} />
                    </ActionIcon>
                  </Group>
                </Group>
              );
            })}
            {optionsError && (
              <Text size="xs" c="red" data-error-text data-testid="options-error">
                {optionsError}
              </Text>
            )}
            <Group>
              <Button
                size="xs"
                variant="subtle"
                leftSection={<IconPlus size={14} />}
                disabled={question.options.length >= QUESTIONNAIRE_LIMITS.options}
                onClick={() => edit.addOption(i)}
                data-testid="option-add"
              >
                <Trans>Add an option</Trans>
              </Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
