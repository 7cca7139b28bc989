import { useState } from 'react';
import { Badge, Button, Code, Drawer, Group, Menu, Stack, Text, Tooltip } from '@mantine/core';
import { IconAlertTriangle, IconEdit, IconKey, IconListDetails, IconPlus, IconPower, IconSend, IconTrash } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  SECRET_OVERLAP_MS,
  SIGNATURE_TOLERANCE_SECONDS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_HEADERS,
  WEBHOOK_LIMIT,
  type WebhookCreated,
  type WebhookJson,
  type WebhookSecret,
} from '@passcloud/functions/contract/webhooks';
import { api } from '../../app/api.ts';
import { formatDateTime, formatList } from '../../app/format.ts';
import { useList, useUrlFilters, useWrite } from '../../app/queries.ts';
import { confirmAction } from '../confirm.tsx';
import { AddUpToLimit, SectionIntro } from './parts.tsx';
import { ListFrame, OpenCell, RowMenu, type Column } from '../../components/ListFrame.tsx';
import { ShownOnceModal } from '../../components/ShownOnceModal.tsx';
import { Truncated } from '../../components/Truncated.tsx';
import { DELIVERY_URL_DEFAULTS, WebhookDeliveries, useWebhookLabels } from './WebhookDeliveries.tsx';
import { WebhookForm } from './WebhookForm.tsx';

/** The open delivery log and its filters, as they stand in the URL (mails about a failing webhook link to `?webhook=`). */
const URL_DEFAULTS = { webhook: '', ...DELIVERY_URL_DEFAULTS };

/** A secret as it is shown once: after creation, or after a rotation with the time the old one stops signing. */
interface ShownSecret {
  secret: string;
  url: string;
  previousSecretUntil: string | null;
}

/**
 * Webhooks: the company's subscriptions (at most WEBHOOK_LIMIT), each an https address that
 * receives the events it chose, signed with its secret. The secret is shown once, when the
 * subscription is made and when it is rotated; each subscription has a delivery log in a drawer.
 */
export function WebhooksSection() {
  const { t } = useLingui();
  const labels = useWebhookLabels();
  const [inUrl, setInUrl] = useUrlFilters(URL_DEFAULTS);
  const list = useList<WebhookJson>({ resource: 'webhooks', path: '/v1/webhooks' });
  const [editing, setEditing] = useState<WebhookJson | 'new' | null>(null);
  const [shown, setShown] = useState<ShownSecret | null>(null);

  const webhooks = list.items;
  const atLimit = webhooks.length >= WEBHOOK_LIMIT;
  const open = webhooks.find((w) => w.webhookKey === inUrl.webhook) ?? null;
  const openLog = (webhook: WebhookJson) => setInUrl({ ...URL_DEFAULTS, webhook: webhook.webhookKey });
  const closeLog = () => setInUrl(URL_DEFAULTS);

  // A refusal (a stale version among them) is toasted, and the webhooks and their deliveries are read again either way.
  const touched = { touches: ['webhooks', 'webhookDeliveries'], refreshOnFailure: true };
  const test = useWrite((webhook: WebhookJson) => api.post<{ deliveryKey: string }>(`/v1/webhooks/${webhook.webhookKey}/test`, undefined, { silent: true }), {
    ...touched,
    success: t`A test event is on its way; see it in the delivery log`,
  });
  const rotation = useWrite(
    (webhook: WebhookJson) => api.post<WebhookSecret>(`/v1/webhooks/${webhook.webhookKey}/secret`, { version: webhook.version }, { silent: true }),
    {
      ...touched,
      onSuccess: (answer) => setShown({ secret: answer.secret, url: answer.webhook.url, previousSecretUntil: answer.previousSecretUntil }),
    },
  );
  const deletion = useWrite((webhook: WebhookJson) => api.del(`/v1/webhooks/${webhook.webhookKey}`, { query: { version: webhook.version }, silent: true }), {
    ...touched,
    success: t`Webhook deleted`,
    onSuccess: (_, webhook) => inUrl.webhook === webhook.webhookKey && closeLog(),
  });
  const switching = useWrite(
    (webhook: WebhookJson) =>
      api.patch<WebhookJson>(`/v1/webhooks/${webhook.webhookKey}`, { enabled: !webhook.enabled, version: webhook.version }, { silent: true }),
    { ...touched, success: (_, webhook) => (webhook.enabled ? t`Webhook turned off` : t`Webhook turned on`) },
  );
  const busy = [test, rotation, deletion, switching].find((write) => write.isPending)?.variables?.webhookKey ?? null;

  const hours = SECRET_OVERLAP_MS / 3_600_000;
  const rotate = (webhook: WebhookJson) =>
    confirmAction({
      title: t`Rotate secret`,
      text: t`A new secret signs deliveries from now on. The current secret keeps signing them too for ${hours} hours, so you can update the receiver without losing events; after that only the new one works.`,
      confirm: t`Rotate secret`,
      testId: 'rotate',
      onConfirm: () => rotation.mutate(webhook),
    });

  const remove = (webhook: WebhookJson) => {
    const url = webhook.url;
    confirmAction({
      title: t`Delete webhook`,
      text: t`Delete the webhook for ${url}? It receives no more events, and deliveries still waiting are not sent.`,
      confirm: t`Delete`,
      testId: 'delete',
      color: 'red',
      onConfirm: () => deletion.mutate(webhook),
    });
  };

  const toggle = (webhook: WebhookJson) => {
    if (!webhook.enabled) switching.mutate(webhook);
    else
      confirmAction({
        title: t`Turn off webhook`,
        text: t`While it is off, no events are sent to it. Turn it on again at any time.`,
        confirm: t`Turn off`,
        testId: 'turn-off',
        color: 'red',
        onConfirm: () => switching.mutate(webhook),
      });
  };

  const eventsText = (webhook: WebhookJson) =>
    webhook.events.length === WEBHOOK_EVENT_TYPES.length ? t`All events` : formatList(webhook.events.map((type) => labels.event[type]));
  const columns: Column<WebhookJson>[] = [
    {
      key: 'url',
      title: t`Address`,
      sticky: 'start',
      render: (webhook) => <OpenCell onOpen={() => openLog(webhook)} text={webhook.url} maw={280} mono testId="webhook-open" />,
    },
    { key: 'events', title: t`Events`, render: (webhook) => <Truncated text={eventsText(webhook)} maw={240} /> },
    { key: 'description', title: t`Description`, render: (webhook) => <Truncated text={webhook.description} maw={200} /> },
    { key: 'state', title: t`State`, render: (webhook) => <WebhookState webhook={webhook} /> },
    {
      key: 'actions',
      title: t`Actions`,
      sticky: 'end',
      render: (webhook) => (
        <Group gap={4} wrap="nowrap">
          <Button
            size="compact-xs"
            variant="light"
            leftSection={<IconListDetails size={14} />}
            onClick={() => openLog(webhook)}
            data-testid="webhook-deliveries"
          >
            <Trans>Delivery log</Trans>
          </Button>
          <RowMenu testId="webhook-menu">
            <Menu.Item
              leftSection={<IconSend size={14} />}
              disabled={!webhook.enabled || busy === webhook.webhookKey}
              onClick={() => test.mutate(webhook)}
              data-testid="webhook-test"
            >
              <Trans>Send test event</Trans>
            </Menu.Item>
            <Menu.Item leftSection={<IconEdit size={14} />} onClick={() => setEditing(webhook)} data-testid="webhook-edit">
              <Trans>Edit</Trans>
            </Menu.Item>
            <Menu.Item leftSection={<IconPower size={14} />} onClick={() => toggle(webhook)} data-testid="webhook-toggle">
              {webhook.enabled ? <Trans>Turn off</Trans> : <Trans>Turn on</Trans>}
            </Menu.Item>
            <Menu.Item leftSection={<IconKey size={14} />} onClick={() => rotate(webhook)} data-testid="webhook-rotate">
              <Trans>Rotate secret</Trans>
            </Menu.Item>
            <Menu.Divider />
            <Menu.Item color="red" leftSection={<IconTrash size={14} />} onClick={() => remove(webhook)} data-testid="webhook-delete">
              <Trans>Delete</Trans>
            </Menu.Item>
          </RowMenu>
        </Group>
      ),
    },
  ];

  const limit = WEBHOOK_LIMIT;
  const count = webhooks.length;
  const tolerance = SIGNATURE_TOLERANCE_SECONDS / 60;
  const signatureHeader = WEBHOOK_HEADERS.signature;
  const addButton = (
    <Button leftSection={<IconPlus size={16} />} disabled={atLimit || !list.page} onClick={() => setEditing('new')} data-testid="webhook-add">
      <Trans>Add webhook</Trans>
    </Button>
  );
  return (
    <Stack gap="md">
      <Group justify="space-between" align="flex-start" wrap="nowrap" gap="md">
        <Text c="dimmed" size="sm" maw={760}>
          <Trans>
            Webhooks send events to your own systems as they happen. Each delivery is a POST request signed with the webhook's secret in the{' '}
            <Code>{signatureHeader}</Code> header: check the signature, and refuse deliveries signed more than {tolerance} minutes ago.
          </Trans>
        </Text>
        <AddUpToLimit atLimit={atLimit} reason={t`A company may have at most ${limit} webhooks; delete one to add another.`} testId="webhook-limit">
          {addButton}
        </AddUpToLimit>
      </Group>

      <ListFrame
        list={list}
        name="webhook"
        columns={columns}
        rowKey={(webhook) => webhook.webhookKey}
        rowProps={(webhook) => ({ 'data-testid': 'webhook-row', 'data-enabled': webhook.enabled })}
        paged={false}
        empty={
          <SectionIntro
            title={<Trans>No webhooks yet</Trans>}
            text={
              <Trans>
                Add one to have passes, alarms, devices going online or offline, questionnaire results and calls sent to an https address of your own the moment
                they happen, instead of asking the API for them.
              </Trans>
            }
            testId="webhook-intro"
          />
        }
      />
      {list.page && (
        <Text size="xs" c="dimmed" data-testid="webhook-count">
          <Trans>
            {count} of {limit} webhooks
          </Trans>
        </Text>
      )}

      {editing && (
        <WebhookForm
          webhook={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onCreated={(created: WebhookCreated) => {
            setEditing(null);
            setShown({ secret: created.secret, url: created.webhook.url, previousSecretUntil: null });
          }}
          onSaved={() => setEditing(null)}
        />
      )}
      {shown && <SecretModal shown={shown} onClose={() => setShown(null)} />}

      <Drawer
        opened={!!open}
        onClose={closeLog}
        position="right"
        size="85%"
        title={
          <Stack gap={0}>
            <Text fw={600}>
              <Trans>Delivery log</Trans>
            </Text>
            <Text size="sm" c="dimmed" ff="monospace" style={{ wordBreak: 'break-all' }} data-testid="delivery-url">
              {open?.url}
            </Text>
          </Stack>
        }
        closeButtonProps={{ 'aria-label': t`Close` }}
        data-testid="delivery-drawer"
      >
        {open && (
          <Stack gap="md">
            <Group gap="xs">
              <WebhookState webhook={open} />
              <Button
                size="xs"
                variant="light"
                leftSection={<IconSend size={14} />}
                loading={busy === open.webhookKey}
                disabled={!open.enabled}
                onClick={() => test.mutate(open)}
                data-testid="delivery-send-test"
              >
                <Trans>Send test event</Trans>
              </Button>
            </Group>
            <WebhookDeliveries key={open.webhookKey} webhook={open} />
          </Stack>
        )}
      </Drawer>
    </Stack>
  );
}

/** On or off, and why off: turned off by the service after failing, or failing now. */
function WebhookState({ webhook }: { webhook: WebhookJson }) {
  const { t } = useLingui();
  const since = formatDateTime(webhook.failingSince);
  return (
    <Group gap={4} wrap="nowrap" w="max-content">
      {webhook.enabled ? (
        <Badge size="sm" variant="light" color="teal" data-testid="webhook-on">
          <Trans>Active</Trans>
        </Badge>
      ) : webhook.disabledReason === 'failing' ? (
        <Tooltip label={t`Deliveries failed from ${since} without one succeeding, so the service turned it off.`} multiline maw={300} withinPortal>
          <Badge size="sm" variant="light" color="red" leftSection={<IconAlertTriangle size={12} aria-hidden />} data-testid="webhook-failing-off">
            <Trans>Turned off after failing</Trans>
          </Badge>
        </Tooltip>
      ) : (
        <Badge size="sm" variant="light" color="gray" data-testid="webhook-off">
          <Trans>Turned off</Trans>
        </Badge>
      )}
      {webhook.enabled && webhook.failingSince && (
        <Badge size="sm" variant="light" color="orange" data-testid="webhook-failing">
          <Trans>Failing since {since}</Trans>
        </Badge>
      )}
    </Group>
  );
}

/** The secret, shown this once: copy it, and say it is kept before closing. */
function SecretModal({ shown, onClose }: { shown: ShownSecret; onClose: () => void }) {
  const { t } = useLingui();
  const until = formatDateTime(shown.previousSecretUntil);
  const url = shown.url;
  return (
    <ShownOnceModal
      title={shown.previousSecretUntil ? t`New signing secret` : t`Signing secret`}
      warningTitle={t`Copy the secret now`}
      warning={<Trans>It will not be shown again. If it is lost, rotate the secret to get a new one.</Trans>}
      value={shown.secret}
      copyLabel={<Trans>Copy the secret</Trans>}
      keptLabel={t`I have stored the secret`}
      testId="webhook"
      notes={
        shown.previousSecretUntil && (
          <Text size="sm" c="dimmed" data-testid="webhook-previous-until">
            <Trans>The previous secret also signs deliveries until {until}.</Trans>
          </Text>
        )
      }
      onClose={onClose}
    >
      <Text size="sm">
        <Trans>Your receiver at {url} checks the signature of each delivery with this secret.</Trans>
      </Text>
      <Text
        ff="monospace"
        fw={600}
        size="sm"
        p="sm"
        bg="gray.0"
        style={{ wordBreak: 'break-all', borderRadius: 'var(--mantine-radius-sm)' }}
        data-testid="webhook-secret"
      >
        {shown.secret}
      </Text>
    </ShownOnceModal>
  );
}
