import { useState } from 'react';
import { Anchor, Badge, Button, Code, Group, Stack, Text, Textarea } from '@mantine/core';
import { IconExternalLink, IconPlus, IconRefresh, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { API_KEY_LIMIT, type ApiKeyJson, type ApiKeySecret } from '@passcloud/functions/contract/apiKeys';
import { formatDateTime, formatList } from '../../app/format.ts';
import { menuTitle } from '../../app/menuTitles.ts';
import { invalidate, useList, useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { AddUpToLimit, SectionIntro } from './parts.tsx';
import { ListFrame, type Column } from '../../components/ListFrame.tsx';
import { ShownOnceModal } from '../../components/ShownOnceModal.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { API_KEYS_PATH, apiKeys, codeTitles, type ApiKeyList } from './api.ts';
import { ApiKeyForm } from './ApiKeyForm.tsx';

/** How a machine sends its key; shown as code, the same in every language. */
const BEARER = 'Authorization: Bearer <key>';
const TITLES = codeTitles();

/**
 * The start of a key as a row shows it: `pck_`, then the key's own id (the company's id between
 * them is the same in every row). The whole prefix shows on hover.
 */
const shortPrefix = (apiKey: ApiKeyJson): string => `${apiKey.prefix.slice(0, apiKey.prefix.indexOf('_') + 1)}…_${apiKey.apiKeyKey}`;

/** A key as it is shown once: after it is made, or after it is given a new secret. */
interface ShownKey {
  key: string;
  name: string;
  renewed: boolean;
}

/**
 * API keys: credentials for the company's own systems (at most `limit`), each reaching only the
 * sections chosen for it and never what is for people only. The whole key is shown once, when it
 * is made and when it is given a new secret; making, renewing and revoking ask for the password.
 */
export function ApiKeysSection() {
  const { t } = useLingui();
  const list = useList<ApiKeyJson, ApiKeyList>({ resource: 'apiKeys', path: API_KEYS_PATH });
  const [creating, setCreating] = useState(false);
  const [shown, setShown] = useState<ShownKey | null>(null);

  const keys = list.items;
  const limit = list.page?.limit ?? API_KEY_LIMIT;
  const count = keys.length;
  const atLimit = count >= limit;

  // A refusal (a stale version among them) is toasted, and the list is read again either way.
  const renewal = useWrite((apiKey: ApiKeyJson) => apiKeys.newSecret(apiKey), {
    touches: ['apiKeys'],
    refreshOnFailure: true,
    onSuccess: (answer) => setShown({ key: answer.key, name: answer.apiKey.name, renewed: true }),
  });
  const revocation = useWrite((apiKey: ApiKeyJson) => apiKeys.revoke(apiKey), { touches: ['apiKeys'], refreshOnFailure: true, success: t`API key revoked` });
  const busy = renewal.isPending ? renewal.variables.apiKeyKey : revocation.isPending ? revocation.variables.apiKeyKey : null;

  const renew = (apiKey: ApiKeyJson) => {
    const name = apiKey.name;
    confirmAction({
      title: t`New secret`,
      text: t`Give the key “${name}” a new secret? The current key stops working at once: every system that sends it is refused until it is given the new one, which is shown only once.`,
      confirm: t`Make new secret`,
      testId: 'renew',
      onConfirm: () => renewal.mutate(apiKey),
    });
  };

  const revoke = (apiKey: ApiKeyJson) => {
    const name = apiKey.name;
    confirmAction({
      title: t`Revoke key`,
      text: t`Revoke the key “${name}”? Every system that uses it is refused at once. This cannot be undone.`,
      confirm: t`Revoke`,
      testId: 'revoke',
      color: 'red',
      onConfirm: () => revocation.mutate(apiKey),
    });
  };

  const sectionsText = (apiKey: ApiKeyJson) => formatList(apiKey.authCodes.map((code) => (TITLES.get(code) ?? [code]).map(menuTitle).join(' / ')));
  const neverUsed = t({ message: 'Never', context: 'API key not used yet' });
  const neverExpires = t({ message: 'Never', context: 'API key does not expire' });
  const columns: Column<ApiKeyJson>[] = [
    {
      key: 'name',
      title: t`Key name`,
      sticky: 'start',
      render: (apiKey) => (
        <Text span size="sm" fw={500} truncate="end" display="block" maw={180} title={apiKey.name} data-testid="apikey-row-name">
          {apiKey.name}
        </Text>
      ),
    },
    {
      key: 'prefix',
      title: t`Key`,
      render: (apiKey) => (
        <Code style={{ whiteSpace: 'nowrap' }} title={apiKey.prefix} data-testid="apikey-prefix">
          {shortPrefix(apiKey)}
        </Code>
      ),
    },
    { key: 'sections', title: t`Sections`, render: (apiKey) => <Truncated text={sectionsText(apiKey)} maw={200} /> },
    { key: 'lastUsedTime', title: t`Last used`, render: (apiKey) => (apiKey.lastUsedTime ? formatDateTime(apiKey.lastUsedTime) : neverUsed) },
    {
      key: 'expireTime',
      title: t`Expires`,
      render: (apiKey) => (
        <Group gap={6} wrap="nowrap">
          <Text span size="sm" style={{ whiteSpace: 'nowrap' }}>
            {apiKey.expireTime ? formatDateTime(apiKey.expireTime) : neverExpires}
          </Text>
          {apiKey.expired && (
            <Badge size="sm" variant="light" color="red" miw="max-content" data-testid="apikey-expired">
              <Trans context="API key">Expired</Trans>
            </Badge>
          )}
        </Group>
      ),
    },
    { key: 'createdBy', title: t`Created by`, render: (apiKey) => <Truncated text={apiKey.createdBy} maw={140} /> },
    { key: 'createTime', title: t`Creation time`, render: (apiKey) => formatDateTime(apiKey.createTime) },
    {
      key: 'actions',
      title: t`Actions`,
      sticky: 'end',
      render: (apiKey) => (
        <Group gap={4} wrap="nowrap">
          <Button
            size="compact-xs"
            variant="light"
            leftSection={<IconRefresh size={14} />}
            disabled={busy === apiKey.apiKeyKey}
            onClick={() => renew(apiKey)}
            data-testid="apikey-renew"
          >
            <Trans>New secret</Trans>
          </Button>
          <Button
            size="compact-xs"
            variant="light"
            color="red"
            leftSection={<IconTrash size={14} />}
            disabled={busy === apiKey.apiKeyKey}
            onClick={() => revoke(apiKey)}
            data-testid="apikey-revoke"
          >
            <Trans>Revoke</Trans>
          </Button>
        </Group>
      ),
    },
  ];

  const requests = list.page?.rate.requests;
  const seconds = list.page?.rate.perSeconds;
  const addButton = (
    <Button leftSection={<IconPlus size={16} />} disabled={atLimit || !list.page} onClick={() => setCreating(true)} data-testid="apikey-add">
      <Trans>New key</Trans>
    </Button>
  );
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
        <Stack gap="xs" maw={760} data-testid="apikey-about">
          <Text c="dimmed" size="sm">
            <Trans>
              API keys let your company's own systems call the Pass Cloud API, sending the key as <Code style={{ whiteSpace: 'nowrap' }}>{BEARER}</Code>. A key
              reaches only the sections chosen for it, and never accounts, two-factor login, API keys, webhook secrets or security settings.
            </Trans>
          </Text>
          {list.page && (
            <Text c="dimmed" size="sm" data-testid="apikey-rate">
              <Trans>
                Each key may make {requests} requests every {seconds} seconds; past that it is asked to wait.
              </Trans>
            </Text>
          )}
          <Anchor component={Link} to="/docs/api" target="_blank" size="sm" w="max-content" data-testid="apikey-docs">
            <Group gap={4} wrap="nowrap">
              <Trans>API reference</Trans>
              <IconExternalLink size={14} aria-hidden />
            </Group>
          </Anchor>
        </Stack>
        <AddUpToLimit atLimit={atLimit} reason={t`A company may have at most ${limit} API keys; revoke one to make another.`} testId="apikey-limit">
          {addButton}
        </AddUpToLimit>
      </Group>

      <ListFrame
        list={list}
        name="apikey"
        columns={columns}
        rowKey={(apiKey) => apiKey.apiKeyKey}
        rowProps={(apiKey) => ({ 'data-testid': 'apikey-row', 'data-expired': apiKey.expired })}
        paged={false}
        empty={
          <SectionIntro
            title={<Trans>No API keys yet</Trans>}
            text={
              <Trans>
                Make one key for each system that calls the API, such as an HR system or a visitor desk, so that each can be given a new secret or revoked on
                its own.
              </Trans>
            }
            testId="apikey-intro"
          />
        }
      />
      {list.page && (
        <Text size="xs" c="dimmed" data-testid="apikey-count">
          <Trans>
            {count} of {limit} keys
          </Trans>
        </Text>
      )}

      {creating && (
        <ApiKeyForm
          onClose={() => setCreating(false)}
          onCreated={(created: ApiKeySecret) => {
            setCreating(false);
            setShown({ key: created.key, name: created.apiKey.name, renewed: false });
          }}
        />
      )}
      {shown && (
        <KeyModal
          shown={shown}
          onClose={() => {
            setShown(null);
            void invalidate('apiKeys');
          }}
        />
      )}
    </Stack>
  );
}

/** The whole key, shown this once: copy it, and say it is kept before closing. */
function KeyModal({ shown, onClose }: { shown: ShownKey; onClose: () => void }) {
  const { t } = useLingui();
  const name = shown.name;
  return (
    <ShownOnceModal
      title={shown.renewed ? t`New secret for “${name}”` : t`API key “${name}”`}
      warningTitle={t`Copy the key now`}
      warning={<Trans>It will not be shown again. If it is lost, give the key a new secret and use the new key instead.</Trans>}
      value={shown.key}
      copyLabel={<Trans>Copy the key</Trans>}
      keptLabel={t`I have stored the key`}
      testId="apikey"
      size={640}
      focusCopy
      notes={
        <Text size="sm" c="dimmed">
          <Trans>
            Your system sends it with each request as <Code style={{ whiteSpace: 'nowrap' }}>{BEARER}</Code>.
          </Trans>
        </Text>
      }
      onClose={onClose}
    >
      <Textarea
        label={t`Key`}
        readOnly
        autosize
        minRows={2}
        value={shown.key}
        onFocus={(event) => event.currentTarget.select()}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)', fontWeight: 600, wordBreak: 'break-all' } }}
        data-testid="apikey-secret"
      />
    </ShownOnceModal>
  );
}
