import { useEffect, useState } from 'react';
import { ActionIcon, Badge, Button, Group, Image, Loader, Paper, Stack, Text, Title, Tooltip } from '@mantine/core';
import { IconRefresh } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { SETTING_NAMES, type CommandState, type DeviceCommandType, type SettingName } from '@passcloud/functions/contract/devices';
import { useQuery } from '@tanstack/react-query';
import { api } from '../../app/api.ts';
import { useList, useWrite, wholeList } from '../../app/queries.ts';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { commandsKey, devicePath, sendCommand, type Command, type LogEntry, type Photo } from './api.ts';
import { formatList, formatNumber, formatShortTime, formatTime } from '../../app/format.ts';
import { useSettingTexts } from './settings.tsx';

/** The photo is asked for this often while the device takes it. */
const PHOTO_POLL_MS = 1000;
/** Past this the screen stops waiting (the server times the command out sooner). */
const PHOTO_GIVE_UP_MS = 30_000;
/** Queued commands are followed this often. */
const COMMANDS_POLL_MS = 2000;
const LOG_PAGE_SIZE = 20;
/** The first page of the log follows what the device sends this often. */
const LOG_REFRESH_MS = 10_000;

export interface PhotoCapture {
  photo: Photo | null;
  capturing: boolean;
  capture: () => void;
}

/**
 * The last photo of the device, and taking a new one: a capturePhoto command, then the photo
 * asked for every second until it is ready or has failed.
 */
export function usePhotoCapture(deviceKey: string): PhotoCapture {
  const [photo, setPhoto] = useState<Photo | null>(null);
  const [waiting, setWaiting] = useState<{ previous?: string; since: number } | null>(null);

  useEffect(() => {
    setPhoto(null);
    setWaiting(null);
    api.get<Photo>(`${devicePath(deviceKey)}/photo`, { quiet: true, silent: true }).then(
      (p) => {
        setPhoto(p);
        // A capture asked for elsewhere (another tab, a moment ago) is followed too.
        if (p.state === 'pending') setWaiting({ since: Date.now() });
      },
      // Without a last photo the panel offers to capture one.
      () => undefined,
    );
  }, [deviceKey]);

  useEffect(() => {
    if (!waiting) return;
    let stopped = false;
    const timer = setInterval(() => {
      api.get<Photo>(`${devicePath(deviceKey)}/photo`, { quiet: true, silent: true }).then(
        (p) => {
          if (stopped) return;
          const fresh = p.state === 'ready' && p.captureTime !== waiting.previous;
          if (fresh || p.state === 'failed') {
            setPhoto(p);
            setWaiting(null);
          } else if (Date.now() - waiting.since > PHOTO_GIVE_UP_MS) {
            setPhoto({ state: 'failed', message: '' });
            setWaiting(null);
          }
        },
        // A moment without an answer: the next second asks again, until the screen gives up.
        () => undefined,
      );
    }, PHOTO_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [waiting, deviceKey]);

  // An offline device refuses the command (409): the request client says so.
  const send = useWrite((previous: string | undefined) => sendCommand(deviceKey, 'capturePhoto').then(() => previous), {
    touches: [commandsKey(deviceKey)],
    onSuccess: (previous) => {
      setPhoto({ state: 'pending', message: '' });
      setWaiting({ previous, since: Date.now() });
    },
  });
  const capture = () => send.mutate(photo?.state === 'ready' ? photo.captureTime : undefined);

  return { photo, capturing: waiting !== null, capture };
}

export function PhotoPanel({ photo: { photo, capturing, capture } }: { photo: PhotoCapture }) {
  const { t } = useLingui();
  const state = capturing ? 'pending' : (photo?.state ?? 'none');
  const ready = photo?.state === 'ready' ? photo : undefined;
  const captured = formatTime(ready?.captureTime);
  return (
    <Paper withBorder radius="md" p="md" data-testid="photo-panel" data-state={state}>
      <Stack gap="sm">
        <Title order={4} size="h5">
          <Trans>Device photo</Trans>
        </Title>
        {state === 'pending' && (
          <Group gap="sm" py="lg" justify="center" data-testid="photo-pending">
            <Loader size="sm" />
            <Text size="sm">{t`Getting, please wait`}</Text>
          </Group>
        )}
        {state === 'failed' && (
          <Stack align="center" py="lg" gap="xs" data-testid="photo-failed">
            <Text size="sm" c="red">
              {t`Failed, try again`}
            </Text>
            <Button size="xs" variant="light" onClick={capture}>
              <Trans>Try again</Trans>
            </Button>
          </Stack>
        )}
        {state === 'ready' && ready && (
          <Stack gap={4}>
            <Image src={ready.url} alt={t`Photo taken by the device`} radius="sm" h={240} w="100%" fit="contain" bg="gray.1" data-testid="device-photo" />
            <Text size="xs" c="dimmed">
              <Trans>Taken {captured}</Trans>
            </Text>
          </Stack>
        )}
        {state === 'none' && (
          <Text size="sm" c="dimmed" py="md" ta="center">
            <Trans>No photo yet. Capture one to see what the camera sees.</Trans>
          </Text>
        )}
      </Stack>
    </Paper>
  );
}

/** Localized names and colours of command types and states. */
export function useCommandTexts() {
  const { t } = useLingui();
  const types: Record<DeviceCommandType, string> = {
    openDoor: t`Open door`,
    closeDoor: t`Close door`,
    reboot: t`Reboot`,
    capturePhoto: t`Capture photo`,
    updateApp: t`Update the app`,
  };
  const states: Record<CommandState, string> = { queued: t`Queued`, succeeded: t`Succeeded`, failed: t`Failed`, timedOut: t`Timed out` };
  const colors: Record<CommandState, string> = { queued: 'blue', succeeded: 'teal', failed: 'red', timedOut: 'orange' };
  return { types, states, colors };
}

/** The newest commands of the device and how each ended; queued ones are followed. */
export function CommandsPanel({ deviceKey }: { deviceKey: string }) {
  const { t } = useLingui();
  const texts = useCommandTexts();
  const commands = useQuery({
    queryKey: commandsKey(deviceKey),
    queryFn: () => api.get<{ items: Command[] }>(`${devicePath(deviceKey)}/commands`, { quiet: true, silent: true }).then((r) => r.items.slice(0, 10)),
    refetchInterval: (q) => (q.state.data?.some((c) => c.state === 'queued') ? COMMANDS_POLL_MS : false),
  });
  const columns: Column<Command>[] = [
    {
      key: 'command',
      title: t`Command`,
      render: (c) => (
        <>
          <Text size="sm">{texts.types[c.type] ?? c.type}</Text>
          <Text size="xs" c="dimmed">
            {formatShortTime(c.createTime)}
          </Text>
        </>
      ),
    },
    {
      key: 'state',
      title: t`State`,
      render: (c) => (
        <>
          <Tooltip label={c.error} disabled={!c.error} multiline maw={260}>
            <Badge color={texts.colors[c.state] ?? 'gray'} variant="light">
              {texts.states[c.state] ?? c.state}
            </Badge>
          </Tooltip>
          {c.finishTime && (
            <Text size="xs" c="dimmed">
              {formatShortTime(c.finishTime)}
            </Text>
          )}
        </>
      ),
    },
  ];

  return (
    <Paper withBorder radius="md" p="md" data-testid="commands-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4} size="h5">
            <Trans>Recent commands</Trans>
          </Title>
          <ActionIcon variant="subtle" aria-label={t`Refresh`} onClick={() => void commands.refetch()}>
            <IconRefresh size={16} />
          </ActionIcon>
        </Group>
        <ListFrame
          list={wholeList(commands)}
          name="commands"
          columns={columns}
          rowKey={(c) => c.commandKey}
          rowProps={(c) => ({ 'data-testid': `command-${c.commandKey}`, 'data-state': c.state })}
          empty={
            <Text size="sm" c="dimmed">
              <Trans>No commands yet.</Trans>
            </Text>
          }
          striped={false}
          paged={false}
        />
      </Stack>
    </Paper>
  );
}

/**
 * A log entry as a sentence in the reader's language: the device sends a code with parameters,
 * and settings and commands are named as the console names them. Only a vendor's own text
 * (`other`, or a code newer than the console) is shown as it came, marked as the terminal's words.
 */
export function useLogText(): (entry: LogEntry) => string {
  const { t } = useLingui();
  const settingTexts = useSettingTexts();
  const commandTexts = useCommandTexts();
  const known = new Set<string>(SETTING_NAMES);
  const settingList = (names: readonly string[] = []) => formatList(names.map((n) => (known.has(n) ? settingTexts.labels[n as SettingName] : n)));
  return (entry) => {
    const params = entry.params ?? {};
    switch (entry.code) {
      case 'connected':
        return t`Connected to the cloud`;
      case 'awaitingApproval':
        return t`Waiting for an administrator to approve this terminal`;
      case 'rebinding':
        return t`The stored credentials were refused; binding again`;
      case 'settingsApplied': {
        // A device that starts applies everything it is given; 31 names say less than "all".
        if (SETTING_NAMES.every((n) => params.settings?.includes(n))) return t`Applied all settings`;
        const settings = settingList(params.settings);
        return t`Applied settings: ${settings}`;
      }
      case 'settingsIgnored': {
        const settings = settingList(params.settings);
        return t`Ignored settings it cannot apply: ${settings}`;
      }
      case 'doorOpened':
        return t`Door opened by a remote command`;
      case 'doorClosed':
        return t`Door closed by a remote command`;
      case 'photoCaptured':
        return t`Photo captured and uploaded`;
      case 'rebooting':
        return t`Rebooting on a remote command`;
      case 'commandFailed': {
        const command = params.command ? (commandTexts.types[params.command as DeviceCommandType] ?? params.command) : t`A command`;
        const error = params.error;
        return error ? t`${command} failed: ${error}` : t`${command} failed`;
      }
      case 'unreadableMessage': {
        const topic = params.topic ?? '';
        return t`Unreadable message on ${topic}`;
      }
      case 'appUpdated': {
        const version = params.version ?? '';
        return t`Client updated to version ${version}`;
      }
      case 'appUpdateFailed': {
        const version = params.version ?? '';
        const error = params.error ?? '';
        return t`Client update to version ${version} failed: ${error}`;
      }
      case 'facesSynced': {
        const count = params.count ?? 0;
        const failed = formatNumber(params.failed ?? 0);
        return params.failed
          ? plural(count, { one: `Applied # face change; ${failed} could not be applied`, other: `Applied # face changes; ${failed} could not be applied` })
          : plural(count, { one: 'Applied # face change', other: 'Applied # face changes' });
      }
      case 'faceSyncFailed': {
        const error = params.error ?? '';
        return t`Could not fetch face changes: ${error}`;
      }
      case 'messageRefused': {
        const topic = params.topic ?? '';
        const error = params.error ?? '';
        return t`The cloud refused a message on ${topic}: ${error}`;
      }
      case 'faceCursorReset':
        return t`The face cursor was from an earlier binding: the face library was emptied and is pulled again`;
      case 'callStarted': {
        const number = params.number ?? '';
        return t`Call with ${number} started`;
      }
      case 'callEnded': {
        const number = params.number ?? '';
        const seconds = params.count ?? 0;
        return t`Call with ${number} ended after ${seconds} s`;
      }
      case 'callMissed': {
        const number = params.number ?? '';
        return t`Call with ${number} was not answered`;
      }
      case 'recordingUploaded':
        return t`Call recording uploaded`;
      case 'recordingFailed': {
        const error = params.error ?? '';
        return t`Call recording could not be uploaded: ${error}`;
      }
      case 'recordRefused': {
        const id = params.id ?? '';
        const error = params.error ?? '';
        return t`The cloud refused pass record ${id}: ${error}`;
      }
      case 'captureFailed': {
        const id = params.id ?? '';
        const error = params.error ?? '';
        return t`The capture of pass record ${id} could not be uploaded: ${error}`;
      }
      case 'callRefused': {
        const id = params.id ?? '';
        const error = params.error ?? '';
        return t`The cloud refused call ${id}: ${error}`;
      }
      case 'questionnairesShown': {
        const count = params.count ?? 0;
        const titles = formatList(params.titles ?? []);
        return count
          ? plural(count, { one: `Showing # questionnaire: ${titles}`, other: `Showing # questionnaires: ${titles}` })
          : t`No questionnaires to show`;
      }
      case 'questionnairesFailed': {
        const error = params.error ?? '';
        return t`Could not read the questionnaires: ${error}`;
      }
      case 'answerRefused': {
        const id = params.id ?? '';
        const error = params.error ?? '';
        return t`The cloud refused questionnaire answer ${id}: ${error}`;
      }
      case 'other': {
        const message = entry.message ?? '';
        return t`In the terminal's own words: ${message}`;
      }
      default: {
        // A code of a newer firmware than this console knows.
        const code = entry.code;
        const message = entry.message ?? '';
        return message
          ? t`${code} (a code this console does not know), in the terminal's own words: ${message}`
          : t`${code} (a code this console does not know)`;
      }
    }
  };
}

/** The device's own log, newest first, a page at a time; the first page follows what the device sends. */
export function LogsPanel({
  deviceKey,
  path = `${devicePath(deviceKey)}/logs`,
  resource = 'devices',
}: {
  deviceKey: string;
  path?: string;
  resource?: string;
}) {
  const { t } = useLingui();
  const logText = useLogText();
  const list = useList<LogEntry>({
    resource,
    path,
    pageSize: LOG_PAGE_SIZE,
    refreshMs: (_, pageIndex) => (pageIndex === 0 ? LOG_REFRESH_MS : false),
  });
  const levels: Record<LogEntry['level'], { label: string; color: string }> = {
    info: { label: t`Info`, color: 'blue' },
    warn: { label: t`Warning`, color: 'orange' },
    error: { label: t`Error`, color: 'red' },
  };
  const columns: Column<LogEntry>[] = [
    { key: 'time', title: t`Time`, width: 200, render: (entry) => formatTime(entry.time) },
    {
      key: 'level',
      title: t`Level`,
      width: 100,
      render: (entry) => (
        <Badge size="sm" variant="light" color={levels[entry.level]?.color ?? 'gray'}>
          {levels[entry.level]?.label ?? entry.level}
        </Badge>
      ),
    },
    { key: 'message', title: t`Message`, wrap: true, render: logText },
  ];

  return (
    <Paper withBorder radius="md" p="md" data-testid="logs-panel">
      <Stack gap="sm">
        <Group justify="space-between">
          <Title order={4} size="h5">
            <Trans>Device log</Trans>
          </Title>
          <Button
            size="xs"
            variant="subtle"
            leftSection={<IconRefresh size={14} />}
            onClick={() => (list.cursors.length > 1 ? list.restart() : void list.refetch())}
          >
            <Trans>Newest</Trans>
          </Button>
        </Group>
        <ListFrame
          list={list}
          name="logs"
          columns={columns}
          rowKey={(entry) => entry.logKey}
          rowProps={(entry) => ({ 'data-testid': 'log-row', 'data-code': entry.code })}
          empty={
            <Text size="sm" c="dimmed">
              <Trans>The device has not sent any log entries yet.</Trans>
            </Text>
          }
        />
      </Stack>
    </Paper>
  );
}
