import { useState, type ReactNode } from 'react';
import {
  ActionIcon,
  Alert,
  Button,
  Code,
  CopyButton,
  FileInput,
  Group,
  Paper,
  Progress,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconCheck, IconCopy, IconUpload } from '@tabler/icons-react';
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import {
  CLIENT_PACKAGE_MAX_BYTES,
  VERSION_PATTERN,
  type CompletedPackage,
  type PresignedPackage,
  type SystemInfo,
} from '@passcloud/functions/contract/settings';
import { api } from '../../app/api.ts';
import { formatBytes, formatDateTime, formatNumber } from '../../app/format.ts';
import { itemKey, showFailure, useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { putFile, UploadError } from '../../app/upload.ts';
import { FactsTable } from '../parts.tsx';
import { fieldIssues } from './api.ts';

const PATH = '/v1/settings/system';

/** A value an installer or integrator copies, with its copy button. */
function Copyable({ value, testId }: { value: string; testId: string }) {
  const { t } = useLingui();
  return (
    <Group gap={4} wrap="nowrap">
      <Text size="sm" ff="monospace" style={{ wordBreak: 'break-all' }} data-testid={testId}>
        {value}
      </Text>
      <CopyButton value={value}>
        {({ copied, copy }) => (
          <Tooltip label={copied ? t`Copied` : t`Copy`} withArrow>
            <ActionIcon variant="subtle" color={copied ? 'teal' : 'gray'} onClick={copy} aria-label={t`Copy`} data-testid={`${testId}-copy`}>
              {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
            </ActionIcon>
          </Tooltip>
        )}
      </CopyButton>
    </Group>
  );
}

interface UploadValues {
  file: File | null;
  version: string;
}

/**
 * Ports and versions: where devices and integrators reach the service (copyable), the code and
 * client versions, and uploading a new client install package, which every online terminal is
 * told of.
 */
export function SystemSection() {
  const { t } = useLingui();
  const read = useItem<SystemInfo>({ resource: 'settings', path: PATH });
  const info = read.item;
  const [percent, setPercent] = useState<number | null>(null);
  const [done, setDone] = useState<CompletedPackage | null>(null);
  const maxMb = formatNumber(CLIENT_PACKAGE_MAX_BYTES / 1024 / 1024);

  const form = useForm<UploadValues>({
    mode: 'controlled',
    initialValues: { file: null, version: '' },
    validate: {
      file: (file) => {
        if (!file) return t`Choose the install package`;
        if (!file.name.toLowerCase().endsWith('.apk')) return t`Choose an .apk file`;
        if (file.size === 0) return t`The file is empty`;
        return file.size > CLIENT_PACKAGE_MAX_BYTES ? t`The file is larger than ${maxMb} MB` : null;
      },
      version: (value) => {
        if (!value.trim()) return t`Enter the version`;
        return VERSION_PATTERN.test(value.trim()) ? null : t`Enter the version as three numbers, like 3.2.1`;
      },
    },
  });

  // The package goes to storage with its progress, then the server checks it and tells the terminals; the versions shown follow.
  const sending = useWrite(
    async ({ file, version }: { file: File; version: string }) => {
      const target = await api.post<PresignedPackage>('/v1/settings/system/packages', { version, filename: file.name, size: file.size }, { silent: true });
      await putFile(target.upload, file, setPercent);
      setPercent(100);
      return api.post<CompletedPackage>(`/v1/settings/system/packages/${target.packageKey}/complete`, undefined, { silent: true });
    },
    {
      touches: [itemKey('settings', PATH)],
      onSuccess: (completed) => {
        setDone(completed);
        form.reset();
      },
      onError: (error) => {
        if (error instanceof UploadError) {
          form.setFieldError('file', t`The file could not be uploaded. Check the connection and try again.`);
        } else if (error instanceof RequestError) {
          const issues = fieldIssues(error, ['version', 'filename', 'size', 'file']);
          const fileIssue = issues.file ?? issues.filename ?? issues.size;
          if (issues.version) form.setFieldError('version', issues.version);
          if (fileIssue) form.setFieldError('file', fileIssue);
          if (!issues.version && !fileIssue) showFailure(error);
        } else showFailure(error);
      },
    },
  );
  const upload = form.onSubmit(({ file, version }) => {
    if (!file) return;
    setDone(null);
    setPercent(0);
    sending.mutate({ file, version: version.trim() }, { onSettled: () => setPercent(null) });
  });

  const uploading = percent !== null;
  const client = info?.client;
  const doneVersion = done?.version ?? '';
  return (
    <Stack gap="lg">
      {read.isError && !info && (
        <Group justify="center" gap="xs">
          <Text c="red">
            <Trans>The settings could not be loaded.</Trans>
          </Text>
          <Button variant="light" onClick={() => void read.refetch()}>
            <Trans>Retry</Trans>
          </Button>
        </Group>
      )}
      <SimpleGrid cols={{ base: 1, md: 2 }} spacing="md">
        <Paper withBorder radius="md" p="md" data-testid="system-addresses">
          <Title order={3} size="h5" mb="xs">
            <Trans>Service addresses</Trans>
          </Title>
          <FactsTable
            spacing={6}
            rows={[
              [t`API base URL`, info ? <Copyable value={info.apiBaseUrl} testId="system-api-url" /> : null],
              [t`MQTT endpoint`, info ? <Copyable value={info.mqtt.endpoint} testId="system-mqtt-endpoint" /> : null],
              [
                t`MQTT port (TCP)`,
                info ? (
                  <Text size="sm" data-testid="system-mqtt-tcp">
                    {info.mqtt.tcpPort}
                  </Text>
                ) : null,
              ],
              [
                t`MQTT over WebSocket port`,
                info ? (
                  <Text size="sm" data-testid="system-mqtt-ws">
                    {info.mqtt.wsPort}
                  </Text>
                ) : null,
              ],
              [t`WebSocket path`, info ? <Code>{info.mqtt.wsPath}</Code> : null],
              [
                t`Database port`,
                info ? (
                  <Text size="sm" data-testid="system-database-port" title={info.database.endpoint}>
                    {info.database.port}
                  </Text>
                ) : null,
              ],
            ]}
          />
          <Text size="xs" c="dimmed" mt="xs">
            <Trans>Face terminals and integrations connect to these addresses.</Trans>
          </Text>
        </Paper>
        <Paper withBorder radius="md" p="md" data-testid="system-versions">
          <Title order={3} size="h5" mb="xs">
            <Trans>Versions</Trans>
          </Title>
          <FactsTable
            spacing={6}
            rows={[
              [
                t`Code version`,
                <Text size="sm" data-testid="system-version">
                  {info?.version}
                </Text>,
              ],
              [
                t`Build`,
                <Text size="sm" ff="monospace">
                  {info?.buildId}
                </Text>,
              ],
              [
                t`Client version`,
                <Text size="sm" data-testid="system-client-version">
                  {info && (client ? client.version : t`No install package uploaded yet`)}
                </Text>,
              ],
              ...(client
                ? ([
                    [t`Package size`, <Text size="sm">{formatBytes(client.size)}</Text>],
                    [t`SHA-256`, <Copyable value={client.sha256} testId="system-client-sha256" />],
                    [t`Uploaded on`, <Text size="sm">{formatDateTime(client.uploadTime)}</Text>],
                  ] as [string, ReactNode][])
                : []),
            ]}
          />
        </Paper>
      </SimpleGrid>

      <Paper withBorder radius="md" p="md">
        <form onSubmit={upload} noValidate>
          <Stack gap="sm" maw={640}>
            <Title order={3} size="h5">
              <Trans>Client install package</Trans>
            </Title>
            <Text size="sm" c="dimmed">
              <Trans>
                Upload the terminal app (.apk, up to {maxMb} MB). Every online terminal is told to update; the others update when they next connect.
              </Trans>
            </Text>
            <FileInput
              label={t`Install package`}
              placeholder={t`Choose an .apk file`}
              accept=".apk,application/vnd.android.package-archive"
              required
              clearable
              disabled={uploading}
              leftSection={<IconUpload size={16} />}
              {...form.getInputProps('file')}
              data-testid="system-package-file"
            />
            <TextInput
              label={t`Version`}
              placeholder="3.2.1"
              required
              disabled={uploading}
              maw={200}
              {...form.getInputProps('version')}
              data-testid="system-package-version"
            />
            {uploading && (
              <Stack gap={4}>
                <Text size="xs" c="dimmed">
                  <Trans>Uploading… {percent}%</Trans>
                </Text>
                <Progress value={percent ?? 0} animated aria-label={t`Upload progress`} data-testid="system-package-progress" />
              </Stack>
            )}
            {done && (
              <Alert color="teal" variant="light" withCloseButton closeButtonLabel={t`Close`} onClose={() => setDone(null)} data-testid="system-package-done">
                <Text size="sm" fw={500}>
                  <Trans>Version {doneVersion} is uploaded.</Trans>
                </Text>
                <Text size="sm" data-testid="system-package-notified">
                  <Plural
                    value={done.notified}
                    _0="No terminal is online; terminals update when they next connect."
                    one="Sent to # online terminal."
                    other="Sent to # online terminals."
                  />
                </Text>
              </Alert>
            )}
            <Group justify="flex-end" gap="xs">
              <Button variant="default" disabled={uploading || !form.isDirty()} onClick={() => form.reset()} data-testid="system-package-cancel">
                <Trans>Cancel</Trans>
              </Button>
              <Button type="submit" loading={uploading} leftSection={<IconUpload size={16} />} data-testid="system-package-upload">
                <Trans>Upload</Trans>
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
    </Stack>
  );
}
