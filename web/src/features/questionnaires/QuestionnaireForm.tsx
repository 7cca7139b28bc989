import { useRef, useState, type RefObject } from 'react';
import { Alert, Button, Drawer, Group, MultiSelect, NumberInput, SegmentedControl, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { QUESTIONNAIRE_LIMITS, QUESTIONNAIRE_MODES } from '@passcloud/functions/contract/questionnaires';
import { api, toast } from '../../app/api.ts';
import { formatNumber } from '../../app/format.ts';
import { pickDevices, pickGroups } from '../../app/pickers.ts';
import { showFailure, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { StaleNotice } from '../../components/StaleNotice.tsx';
import { confirmDiscard } from '../confirm.tsx';
import { QUESTIONNAIRES_PATH, RESOURCE, questionnairePath, useQuestionnaireLabels, type QuestionnaireItem } from './api.ts';
import { QuestionEditor } from './QuestionEditor.tsx';
import { bodyOf, issueField, questionEdits, valuesOf, type Values } from './questionnaireValues.ts';
import { TranslationsSection, translationLocales, translationRules } from './TranslationsEditor.tsx';
import { ErrorText } from './parts.tsx';

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

  const close = () => confirmDiscard(form.isDirty(), onDone, t`Close this survey without saving?`);
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

  const saving = useWrite(
    (values: Values) => {
      const body = bodyOf(values);
      return item
        ? api.patch(questionnairePath(item.questionnaireKey), { ...body, version: item.version }, { silent: true })
        : api.post(QUESTIONNAIRES_PATH, body, { silent: true });
    },
    {
      touches: [RESOURCE],
      success: item ? t`Survey saved` : t`Survey created`,
      onSuccess: () => {
        form.resetDirty();
        onDone();
      },
      // A stale version shows the notice; the problems the server names go to their fields, else the first one to the toast.
      onError: (error, values) => {
        if (!(error instanceof RequestError)) return showFailure(error);
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
      },
    },
  );
  const submit = form.onSubmit((values) => {
    if (validateOptions(values)) saving.mutate(values);
    else showFirstError();
  }, showFirstError);

  const edit = questionEdits(form);

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
            {form.errors.mode && <ErrorText>{form.errors.mode}</ErrorText>}
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
          {form.errors.questions && <ErrorText testId="questionnaire-questions-error">{form.errors.questions}</ErrorText>}
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
          <Button type="submit" loading={saving.isPending} disabled={stale} data-testid="questionnaire-submit">
            {item ? <Trans>Save</Trans> : <Trans>Create</Trans>}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
