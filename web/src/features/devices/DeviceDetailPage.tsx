import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Badge, Button, Group, Loader, Paper, Select, SimpleGrid, Stack, Tabs, Text, TextInput, Title, Tooltip } from '@mantine/core';
import { IconCamera, IconDoorEnter, IconDoorExit, IconPower, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate, useParams } from 'react-router-dom';
import { SETTING_NAMES, SETTING_SECTIONS, type CommandType, type DeviceSettings, type SettingName } from '@passcloud/functions/contract/devices';
import { api } from '../../app/api.ts';
import { RequestError } from '../../app/request.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { confirmAction } from '../confirm.tsx';
import { MissingItem } from '../parts.tsx';
import { useGroups } from '../people/api.ts';
import { DEVICE_LIST, commandsKey, devicePath, sendCommand, type Device } from './api.ts';
import { CommandsPanel, LogsPanel, PhotoPanel, usePhotoCapture } from './panels.tsx';
import { showFailure, useItem, useWrite } from '../../app/queries.ts';
import { ReplacementPanel } from './ReplacementPanel.tsx';
import { SyncStatePanel } from '../passage/authorities/SyncStatePanel.tsx';
import { RecentPasses } from '../passage/records/RecentPasses.tsx';
import { OnlineBadge } from './parts.tsx';
import { DoorModeBadge } from './DoorModes.tsx';
import { formatBytes, formatTime } from '../../app/format.ts';
import { SECTION_NAMES, SettingsSection, useSettingTexts, type SectionName } from './settings.tsx';
import classes from './DeviceDetailPage.module.css';

/** While the device has not confirmed every setting, the screen asks again this often. */
const PENDING_REFRESH_MS = 2000;
/** An offline device confirms nothing until it is back; the screen asks less often. */
const OFFLINE_REFRESH_MS = 10_000;

type TabName = 'basic' | SectionName;

/** One face terminal: its facts, its settings by section, commands, photo, recent commands and log. */
export function DeviceDetailPage() {
  const { t } = useLingui();
  const navigate = useNavigate();
  const { deviceKey = '' } = useParams();
  const texts = useSettingTexts();
  // While the device has not confirmed every setting it is read again, slowly while it is offline.
  const read = useItem<Device>({
    resource: 'devices',
    path: devicePath(deviceKey),
    refreshMs: (d) => (!d?.pending.length ? false : d.online ? PENDING_REFRESH_MS : OFFLINE_REFRESH_MS),
  });
  const device = read.item;
  const groups = useGroups('device').data ?? [];
  const [name, setName] = useState('');
  const [groupKey, setGroupKey] = useState<string | null>(null);
  const [values, setValues] = useState<DeviceSettings | null>(null);
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const [tab, setTab] = useState<TabName>('basic');
  const [stale, setStale] = useState(false);
  const photo = usePhotoCapture(deviceKey);

  /** Puts a device's values in the form. */
  const fill = useCallback((d: Device) => {
    setName(d.name);
    setGroupKey(d.groupKey);
    setValues(d.settings);
    setErrors({});
    setStale(false);
  }, []);

  const changedSettings = (): Partial<DeviceSettings> => {
    if (!device || !values) return {};
    return Object.fromEntries(SETTING_NAMES.filter((n) => values[n] !== device.settings[n]).map((n) => [n, values[n]]));
  };
  const changes = changedSettings();
  const nameChanged = !!device && name.trim() !== device.name;
  const groupChanged = !!device && groupKey !== device.groupKey;
  const dirty = nameChanged || groupChanged || Object.keys(changes).length > 0;

  // Each reading fills the form, unless edits are in progress: those are kept, and only the facts and the badges follow.
  // Before the first filling, the empty fields are not edits.
  const editing = useRef(dirty);
  editing.current = dirty && values !== null;
  useEffect(() => {
    if (device && !editing.current) fill(device);
  }, [device, fill]);
  const reload = () => void read.reload().then((d) => d && fill(d));
  /** A device the server answered: on screen and in the form. */
  const show = (d: Device) => {
    read.put(d);
    fill(d);
  };

  const tabOf = (field: string): TabName => SECTION_NAMES.find((s) => (SETTING_SECTIONS[s] as readonly string[]).includes(field)) ?? 'basic';

  const showErrors = (found: Partial<Record<string, string>>) => {
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) setTab(tabOf(first));
  };

  // The saved device comes back in the answer and takes the place of the one read; the list reads its own when shown.
  const saving = useWrite((body: Record<string, unknown>) => api.patch<Device>(devicePath(deviceKey), body, { silent: true }), {
    onSuccess: show,
    success: t`Saved`,
    onError: (error) => {
      if (error instanceof RequestError && error.issues.length) {
        showErrors(Object.fromEntries(error.issues.map((i) => [i.path.replace(/^settings\./, ''), i.message])));
        return;
      }
      if (error instanceof RequestError && error.status === 409) setStale(true);
      showFailure(error);
    },
  });
  const save = () => {
    if (!device || !values) return;
    const found: Partial<Record<string, string>> = { ...texts.validate(values) };
    if (!name.trim()) found.name = t`Enter the device name`;
    if (Object.keys(found).length) return showErrors(found);
    const body: Record<string, unknown> = { version: device.version };
    if (nameChanged) body.name = name.trim();
    if (groupChanged) body.groupKey = groupKey;
    if (Object.keys(changes).length) body.settings = changes;
    saving.mutate(body);
  };

  // An offline device refuses a command (409): the request client says so.
  const command = useWrite(({ type }: { type: CommandType; done: string }) => sendCommand(deviceKey, type), {
    touches: [commandsKey(deviceKey)],
    success: (_, { done }) => done,
  });
  const busy = command.isPending ? command.variables.type : null;
  const openDoor = () => command.mutate({ type: 'openDoor', done: t`Open-door command sent` });
  const closeDoor = () => command.mutate({ type: 'closeDoor', done: t`Close-door command sent` });

  const confirmReboot = () =>
    confirmAction({
      title: t`Reboot`,
      text: t`Reboot this device? It is out of service for about a minute.`,
      confirm: t`Reboot`,
      color: 'orange',
      onConfirm: () => command.mutate({ type: 'reboot', done: t`Reboot command sent` }),
    });

  // The device's own reads (its log among them) are not touched: it is gone, and the screen leaves; the list reads its own when shown.
  const unbind = useWrite((d: Device) => api.del(devicePath(d.deviceKey), { query: { version: d.version } }), {
    touches: ['licences', 'pickers'],
    success: t`Deleted`,
    onSuccess: () => navigate(DEVICE_LIST),
  });
  const confirmUnbind = () => {
    if (!device) return;
    const deviceName = device.name;
    confirmAction({
      title: t`Unbind device`,
      text: t`Unbind ${deviceName}? It leaves this company and stops receiving settings and authorizations.`,
      confirm: t`Unbind`,
      color: 'red',
      onConfirm: () => unbind.mutate(device),
    });
  };

  if (read.gone) {
    return (
      <ScreenPage>
        <MissingItem text={<Trans>This device does not exist or was unbound.</Trans>} back={DEVICE_LIST} />
      </ScreenPage>
    );
  }
  if (!device || !values) {
    return (
      <ScreenPage>
        <Loader />
      </ScreenPage>
    );
  }

  const stateOf = (setting: SettingName) => {
    const reported = device.reported[setting];
    return { pending: device.pending.includes(setting), reported: reported !== undefined && reported !== device.settings[setting] ? reported : undefined };
  };
  const tabError = (section: TabName) => Object.keys(errors).some((field) => errors[field] && tabOf(field) === section);
  const tabPending = (section: SectionName) => (SETTING_SECTIONS[section] as readonly SettingName[]).filter((n) => device.pending.includes(n)).length;

  const free = formatBytes(device.storage.freeBytes);
  const total = formatBytes(device.storage.totalBytes);
  const storage = t`${free} free of ${total}`;
  const facts: [string, string][] = [
    [t`Serial number`, device.serial],
    [t`Model`, device.model],
    [t`App version`, device.appVersion],
    [t`IP address`, device.ip],
    [t`MAC address`, device.mac],
    [t`Firmware`, device.firmware],
    [t`Storage`, storage],
    [t`Timezone`, device.timezone],
    [t`Camera resolution`, device.cameraResolution],
    [t`Preview resolution`, device.previewResolution],
    [t`Company name`, device.companyName],
    [t`Bound on`, formatTime(device.createTime)],
  ];
  const lastSeen = formatTime(device.lastSeenAt);
  const waiting = device.pending.length;

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="md" data-testid="device-header">
        <Group justify="space-between" align="center" wrap="wrap" gap="sm">
          <Stack gap={4}>
            <Group gap="sm">
              <Title order={3} size="h4" data-testid="device-name">
                {device.name}
              </Title>
              <OnlineBadge online={device.online} />
              <DoorModeBadge doorMode={device.doorMode} />
              {waiting > 0 && (
                <Tooltip label={t`Settings the device has not confirmed yet`}>
                  <Badge color="orange" variant="light" data-testid="pending-sync">
                    <Trans>Pending sync {waiting}</Trans>
                  </Badge>
                </Tooltip>
              )}
            </Group>
            <Text size="sm" c="dimmed" data-testid="last-seen">
              <Trans>Last seen {lastSeen}</Trans>
            </Text>
          </Stack>
          <Group gap="xs">
            <CommandButton testId="cmd-openDoor" icon={<IconDoorEnter size={16} />} loading={busy === 'openDoor'} onClick={openDoor}>
              <Trans>Open door</Trans>
            </CommandButton>
            <CommandButton testId="cmd-closeDoor" icon={<IconDoorExit size={16} />} loading={busy === 'closeDoor'} onClick={closeDoor}>
              <Trans>Close door</Trans>
            </CommandButton>
            <CommandButton testId="cmd-capturePhoto" icon={<IconCamera size={16} />} loading={photo.capturing} onClick={photo.capture}>
              <Trans>Capture photo</Trans>
            </CommandButton>
            <CommandButton testId="cmd-reboot" icon={<IconPower size={16} />} color="orange" loading={busy === 'reboot'} onClick={confirmReboot}>
              <Trans>Reboot</Trans>
            </CommandButton>
            <CommandButton testId="device-unbind" icon={<IconTrash size={16} />} color="red" loading={false} onClick={confirmUnbind}>
              <Trans>Unbind</Trans>
            </CommandButton>
          </Group>
        </Group>
      </Paper>

      <ReplacementPanel device={device} onDone={show} />

      <Paper withBorder radius="md" p="md">
        <Tabs
          value={tab}
          onChange={(v) => v && setTab(v as TabName)}
          keepMounted={false}
          orientation="vertical"
          classNames={{ list: classes.tabList, tab: classes.tab, tabLabel: classes.tabLabel, panel: classes.tabPanel }}
        >
          <Tabs.List>
            <Tabs.Tab
              value="basic"
              color={tabError('basic') ? 'red' : undefined}
              rightSection={
                tabError('basic') ? (
                  <Badge size="xs" color="red" circle>
                    !
                  </Badge>
                ) : undefined
              }
            >
              {t`Basic info`}
            </Tabs.Tab>
            {SECTION_NAMES.map((section) => {
              const pending = tabPending(section);
              return (
                <Tabs.Tab
                  key={section}
                  value={section}
                  color={tabError(section) ? 'red' : undefined}
                  data-testid={`tab-${section}`}
                  rightSection={
                    tabError(section) ? (
                      <Badge size="xs" color="red" circle>
                        !
                      </Badge>
                    ) : pending ? (
                      <Badge size="xs" color="orange" circle>
                        {pending}
                      </Badge>
                    ) : undefined
                  }
                >
                  {texts.sections[section]}
                </Tabs.Tab>
              );
            })}
          </Tabs.List>
          <Tabs.Panel value="basic">
            <Stack>
              <SimpleGrid cols={{ base: 1, md: 2 }} spacing="lg">
                <TextInput
                  label={t`Device name`}
                  required
                  maxLength={64}
                  value={name}
                  onChange={(e) => setName(e.currentTarget.value)}
                  error={errors.name}
                  data-testid="device-name-input"
                />
                <Select
                  label={t`Group`}
                  placeholder={t`No group`}
                  clearable
                  data={groups.map((g) => ({ value: g.groupKey, label: g.name }))}
                  value={groupKey}
                  onChange={setGroupKey}
                  error={errors.groupKey}
                  data-testid="device-group-select"
                />
              </SimpleGrid>
              <SimpleGrid cols={{ base: 1, sm: 2, md: 3 }} spacing="md" verticalSpacing="sm" data-testid="device-facts">
                {facts.map(([label, value]) => (
                  <Stack key={label} gap={0}>
                    <Text size="xs" c="dimmed">
                      {label}
                    </Text>
                    <Text size="sm" style={{ overflowWrap: 'anywhere' }}>
                      {value || '—'}
                    </Text>
                  </Stack>
                ))}
              </SimpleGrid>
            </Stack>
          </Tabs.Panel>
          {SECTION_NAMES.map((section) => (
            <Tabs.Panel key={section} value={section}>
              <SettingsSection
                section={section}
                values={values}
                onChange={(setting, value) => {
                  setValues({ ...values, [setting]: value } as DeviceSettings);
                  if (errors[setting]) setErrors({ ...errors, [setting]: undefined });
                }}
                errors={errors}
                texts={texts}
                states={stateOf}
              />
            </Tabs.Panel>
          ))}
        </Tabs>
        {stale && (
          <Alert color="orange" variant="light" mt="md">
            <Group justify="space-between">
              <Text size="sm">
                <Trans>Someone else changed this device. Reload it to see their changes; your edits will be discarded.</Trans>
              </Text>
              <Button size="xs" variant="light" onClick={reload}>
                <Trans>Reload</Trans>
              </Button>
            </Group>
          </Alert>
        )}
        <Group justify="flex-end" mt="lg">
          <Button variant="default" onClick={() => navigate(DEVICE_LIST)}>
            <Trans>Back</Trans>
          </Button>
          <Button variant="default" disabled={!dirty} onClick={() => fill(device)}>
            <Trans>Discard changes</Trans>
          </Button>
          <Button onClick={save} loading={saving.isPending} disabled={!dirty} data-testid="device-save">
            <Trans>Save</Trans>
          </Button>
        </Group>
      </Paper>
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <PhotoPanel photo={photo} />
        <CommandsPanel deviceKey={deviceKey} />
      </SimpleGrid>
      <LogsPanel deviceKey={deviceKey} />
      <RecentPasses filter={{ deviceKey }} />
      <SyncStatePanel deviceKey={deviceKey} />
    </ScreenPage>
  );
}

/** One of the header's buttons that act on the device. */
function CommandButton({
  testId,
  icon,
  color,
  loading,
  onClick,
  children,
}: {
  testId: string;
  icon: ReactNode;
  color?: string;
  loading: boolean;
  onClick: () => void;
  children: ReactNode;
}) {
  return (
    <Button size="sm" variant="light" color={color} leftSection={icon} loading={loading} onClick={onClick} data-testid={testId}>
      {children}
    </Button>
  );
}
