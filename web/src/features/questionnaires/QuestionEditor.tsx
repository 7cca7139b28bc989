import { ActionIcon, Badge, Button, Group, Paper, Select, Stack, Switch, Text, TextInput, Textarea, Tooltip } from '@mantine/core';
import { IconAlarm, IconArrowDown, IconArrowUp, IconPlus, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { QUESTIONNAIRE_LIMITS, QUESTION_TYPES, type QuestionType } from '@passcloud/functions/contract/questionnaires';
import { formatNumber } from '../../app/format.ts';
import { useQuestionnaireLabels } from './api.ts';
import type { Form, QuestionEdits } from './questionnaireValues.ts';
import { ErrorText } from './parts.tsx';

/** One question: its text, type and mandatory switch, its options (none for free text), and where it stands among the others. */
export function QuestionEditor({ index: i, count, form, edit }: { index: number; count: number; form: Form; edit: QuestionEdits }) {
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
            {optionsError && <ErrorText testId="options-error">{optionsError}</ErrorText>}
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
