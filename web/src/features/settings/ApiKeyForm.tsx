import { Button, Checkbox, Group, Modal, SimpleGrid, Stack, Text, TextInput } from '@mantine/core';
import { DatePickerInput } from '@mantine/dates';
// The date picker's own styles, loaded with the screens that use it.
import '@mantine/dates/styles.css';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import dayjs from 'dayjs';
import { API_KEY_NAME_MAX, KEY_CODES, type ApiKeySecret } from '@passcloud/functions/contract/apiKeys';
import { dayBound } from '../../app/format.ts';
import { menuTitle } from '../../app/menuTitles.ts';
import { useWrite } from '../../app/queries.ts';
import { getAuthorities } from '../../app/session.ts';
import { apiKeys, codeTitles, keyCodeGroups, showRefusal } from './api.ts';

interface Values {
  name: string;
  authCodes: string[];
  /** The last day the key works (`YYYY-MM-DD`), or null for a key that does not expire. */
  expireTime: string | null;
}

const FIELDS = ['name', 'authCodes', 'expireTime'] as const;
const TITLES = codeTitles();

/** The last second of a picked day, in the browser's time zone: the key works through that day. */
const endOfDay = (day: string): string => new Date(Date.parse(dayBound(day, true)!) - 1000).toISOString();

/**
 * Makes an API key: its name, the sections it may use (only those the signed-in account holds,
 * and never those for people only) and an optional last day. The new key goes to `onCreated`, to
 * be shown once.
 */
export function ApiKeyForm({ onClose, onCreated }: { onClose: () => void; onCreated: (created: ApiKeySecret) => void }) {
  const { t } = useLingui();
  const held = new Set(getAuthorities());
  const groups = keyCodeGroups(held);
  const offered = groups.flatMap((group) => group.codes);
  const max = API_KEY_NAME_MAX;
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: { name: '', authCodes: [], expireTime: null },
    validate: {
      name: (value) => (!value.trim() ? t`Enter a name for the key` : value.trim().length > API_KEY_NAME_MAX ? t`Use at most ${max} characters` : null),
      authCodes: (value) => (value.length ? null : t`Choose at least one section`),
    },
  });

  const creation = useWrite(apiKeys.create, { touches: ['apiKeys'], onSuccess: onCreated, onError: (error) => showRefusal(form, FIELDS, error) });
  const submit = form.onSubmit((values) => {
    const authCodes = KEY_CODES.filter((code) => values.authCodes.includes(code));
    creation.mutate({ name: values.name.trim(), authCodes, expireTime: values.expireTime ? endOfDay(values.expireTime) : null });
  });

  return (
    <Modal opened onClose={onClose} title={t`New API key`} size={720} centered data-testid="apikey-form">
      <form onSubmit={submit} noValidate>
        <Stack>
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="md">
            <TextInput
              label={t`Key name`}
              description={t`What uses the key, for the people who manage it: the HR system, the visitor desk.`}
              required
              maxLength={API_KEY_NAME_MAX}
              autoComplete="off"
              data-autofocus
              {...form.getInputProps('name')}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              data-testid="apikey-name"
            />
            <DatePickerInput
              label={t`Works until`}
              description={t`The key stops working when this day ends. Leave it empty for a key that does not expire.`}
              placeholder={t`Never expires`}
              clearable
              minDate={dayjs().format('YYYY-MM-DD')}
              {...form.getInputProps('expireTime')}
              inputWrapperOrder={['label', 'input', 'description', 'error']}
              data-testid="apikey-expiry"
            />
          </SimpleGrid>
          <Checkbox.Group
            label={t`Sections the key may use`}
            description={t`The key reaches only these. Sections your account does not hold cannot be given.`}
            required
            {...form.getInputProps('authCodes')}
            data-testid="apikey-codes"
          >
            <Stack gap="sm" mt="xs">
              {groups.map((group) => (
                <Stack key={group.title} gap={6}>
                  <Text size="sm" fw={500} c="dimmed">
                    {menuTitle(group.title)}
                  </Text>
                  <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs" verticalSpacing="xs">
                    {group.codes.map((code) => (
                      <Checkbox key={code} value={code} label={(TITLES.get(code) ?? [code]).map(menuTitle).join(' / ')} data-testid={`apikey-code-${code}`} />
                    ))}
                  </SimpleGrid>
                </Stack>
              ))}
            </Stack>
          </Checkbox.Group>
          <Group justify="space-between" gap="xs">
            <Group gap="xs">
              <Button size="compact-xs" variant="subtle" onClick={() => form.setFieldValue('authCodes', [...offered])} data-testid="apikey-codes-all">
                <Trans>Choose all</Trans>
              </Button>
              <Button size="compact-xs" variant="subtle" onClick={() => form.setFieldValue('authCodes', [])}>
                <Trans>Clear</Trans>
              </Button>
            </Group>
            <Group gap="xs">
              <Button variant="default" onClick={onClose} data-testid="apikey-cancel">
                <Trans>Cancel</Trans>
              </Button>
              <Button type="submit" loading={creation.isPending} data-testid="apikey-submit">
                <Trans>Make key</Trans>
              </Button>
            </Group>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}
