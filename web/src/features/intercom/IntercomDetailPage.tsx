import { useCallback, useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Loader, Paper, SimpleGrid, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate, useParams } from 'react-router-dom';
import { INTERCOM_NUMBER } from '@passcloud/functions/contract/intercom';
import { api } from '../../app/api.ts';
import { formatTime } from '../../app/format.ts';
import { showFailure, useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';

import { MissingItem } from '../parts.tsx';
import { OnlineBadge } from '../devices/parts.tsx';
import { LogsPanel } from '../devices/panels.tsx';
import { INTERCOM_LIST, intercomPath, type IntercomItem } from './api.ts';
import { KindBadge, SignalBars, useDeleteIntercom } from './parts.tsx';

/** Presence and signal follow the device this often while the screen is open. */
const REFRESH_MS = 15_000;

/** One intercom: its facts, its editable name and number, delete, and its log. */
export function IntercomDetailPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const { deviceKey = '' } = useParams();
  // Presence and signal follow the device; edits in progress are kept.
  const read = useItem<IntercomItem>({ resource: 'intercom', path: intercomPath(deviceKey), refreshMs: REFRESH_MS });
  const device = read.item;
  const [name, setName] = useState('');
  const [number, setNumber] = useState('');
  const [errors, setErrors] = useState<{ name?: string; number?: string }>({});
  const [stale, setStale] = useState(false);
  /** The form has been filled once: before that, its empty fields are not edits. */
  const [filled, setFilled] = useState(false);

  /** Puts an intercom's values in the form. */
  const fill = useCallback((d: IntercomItem) => {
    setFilled(true);
    setName(d.name);
    setNumber(d.number ?? '');
    setErrors({});
    setStale(false);
  }, []);

  const nameChanged = !!device && name.trim() !== device.name;
  const numberChanged = !!device && number.trim() !== (device.number ?? '');
  const dirty = nameChanged || numberChanged;
  const editing = useRef(dirty);
  editing.current = dirty && filled;
  useEffect(() => {
    if (device && !editing.current) fill(device);
  }, [device, fill]);
  const reload = () => void read.reload().then((d) => d && fill(d));

  // The saved intercom comes back in the answer and takes the place of the one read; the list reads its own when shown.
  const saving = useWrite((body: Record<string, unknown>) => api.patch<IntercomItem>(intercomPath(deviceKey), body, { silent: true }), {
    onSuccess: (saved) => {
      read.put(saved);
      fill(saved);
    },
    success: t`Saved`,
    onError: (error) => {
      if (error instanceof RequestError && error.issues.length) {
        setErrors(Object.fromEntries(error.issues.map((i) => [i.path, i.message])));
        return;
      }
      if (error instanceof RequestError && error.status === 409) setStale(true);
      showFailure(error);
    },
  });
  const save = () => {
    if (!device) return;
    const found: typeof errors = {};
    if (!name.trim()) found.name = t`Enter the device name`;
    if (number.trim() && !INTERCOM_NUMBER.test(number.trim())) found.number = t`Use 1 to 16 letters, digits and hyphens`;
    setErrors(found);
    if (Object.keys(found).length) return;
    const body: Record<string, unknown> = { version: device.version };
    if (nameChanged) body.name = name.trim();
    if (numberChanged) body.number = number.trim() || null;
    saving.mutate(body);
  };

  // The intercom's own reads (its log among them) are not touched: it is gone, and the screen leaves; the list reads its own when shown.
  const remove = useDeleteIntercom({ touches: ['licences'], onDeleted: () => navigate(INTERCOM_LIST) });
  const confirmDelete = () => device && remove(device);

  if (read.gone) {
    return (
      <ScreenPage>
        <MissingItem text={<Trans>This intercom does not exist or was deleted.</Trans>} back={INTERCOM_LIST} />
      </ScreenPage>
    );
  }
  if (!device || !filled) {
    return (
      <ScreenPage>
        <Loader />
      </ScreenPage>
    );
  }

  const facts: [string, React.ReactNode][] = [
    [t`Type`, <KindBadge kind={device.kind} />],
    [t`State`, <OnlineBadge online={device.online} />],
    [t`Model`, device.model || '—'],
    [t`Serial number`, device.serial],
    [t`Signal strength`, <SignalBars dbm={device.signal} />],
    [t`Network access time`, formatTime(device.networkTime)],
    [t`Client name`, device.clientName || '—'],
    [t`Last online`, formatTime(device.lastSeenAt)],
    [t`App version`, device.appVersion],
    [t`Firmware`, device.firmware],
    [t`IP address`, device.ip],
    [t`MAC address`, device.mac],
    [t`Bound`, formatTime(device.createTime)],
  ];
  return (
    <ScreenPage>
      <Stack gap="md">
        <Paper withBorder radius="md" p="md">
          <Stack gap="md">
            <Group justify="space-between">
              <Title order={3} size="h4" data-testid="intercom-title">
                {device.name}
              </Title>
              <Button variant="light" color="red" leftSection={<IconTrash size={16} />} onClick={confirmDelete} data-testid="intercom-delete">
                <Trans>Delete</Trans>
              </Button>
            </Group>
            {stale && (
              <Alert color="orange" data-testid="intercom-stale">
                <Group justify="space-between">
                  <Text size="sm">
                    <Trans>Someone else changed this intercom. Load it again to see their changes.</Trans>
                  </Text>
                  <Button size="xs" variant="light" onClick={reload}>
                    <Trans>Load again</Trans>
                  </Button>
                </Group>
              </Alert>
            )}
            <Group align="flex-start" gap="sm">
              <TextInput
                label={t`Device name`}
                value={name}
                maxLength={64}
                onChange={(e) => setName(e.currentTarget.value)}
                error={errors.name}
                w={260}
                withAsterisk
                data-testid="intercom-name"
              />
              <TextInput
                label={t`Number`}
                description={t`What visitors dial at a door station`}
                value={number}
                maxLength={16}
                onChange={(e) => setNumber(e.currentTarget.value)}
                error={errors.number}
                w={220}
                data-testid="intercom-number"
              />
            </Group>
            <Group gap="sm">
              <Button onClick={save} loading={saving.isPending} disabled={!dirty} data-testid="intercom-save">
                <Trans>Save</Trans>
              </Button>
              <Button variant="default" onClick={() => fill(device)} disabled={!dirty}>
                <Trans>Cancel</Trans>
              </Button>
            </Group>
            <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm" verticalSpacing="xs" data-testid="intercom-facts">
              {facts.map(([label, value]) => (
                <Group key={label} gap="xs" wrap="nowrap">
                  <Text size="sm" c="dimmed" miw={150}>
                    {label}
                  </Text>
                  <Text size="sm" component="div">
                    {value}
                  </Text>
                </Group>
              ))}
            </SimpleGrid>
          </Stack>
        </Paper>
        <LogsPanel deviceKey={deviceKey} path={`${intercomPath(deviceKey)}/logs`} resource="intercom" />
      </Stack>
    </ScreenPage>
  );
}
