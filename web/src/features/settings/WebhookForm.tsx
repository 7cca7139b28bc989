import { Button, Checkbox, Code, Group, Modal, SimpleGrid, Stack, Switch, Text, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { Trans, useLingui } from '@lingui/react/macro';
import {
  WEBHOOK_DESCRIPTION_MAX,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_URL_MAX,
  type WebhookCreated,
  type WebhookEventType,
  type WebhookJson,
} from '@passcloud/functions/contract/webhooks';
import { api } from '../../app/api.ts';
import { useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { FormButtons } from '../parts.tsx';
import { showRefusal } from './api.ts';
import { useWebhookLabels } from './WebhookDeliveries.tsx';

interface Values {
  url: string;
  events: string[];
  description: string;
  enabled: boolean;
}

const FIELDS = ['url', 'events', 'description', 'enabled'] as const;

/**
 * Adds a subscription or edits one: its https address, the events it receives, a description and
 * whether it is on. The address's rules (https, no credentials, a public host) are the server's,
 * shown on the field. A new subscription's secret goes to `onCreated`, to be shown once.
 */
export function WebhookForm({
  webhook,
  onClose,
  onCreated,
  onSaved,
}: {
  /** Null to add one. */
  webhook: WebhookJson | null;
  onClose: () => void;
  onCreated: (created: WebhookCreated) => void;
  onSaved: () => void;
}) {
  const { t } = useLingui();
  const labels = useWebhookLabels();
  const max = WEBHOOK_DESCRIPTION_MAX;
  const form = useForm<Values>({
    mode: 'controlled',
    initialValues: webhook
      ? { url: webhook.url, events: [...webhook.events], description: webhook.description, enabled: webhook.enabled }
      : { url: '', events: [], description: '', enabled: true },
    validate: {
      url: (value) => (value.trim() ? null : t`Enter the address that receives the events`),
      events: (value) => (value.length ? null : t`Choose at least one event`),
      description: (value) => (value.trim().length > WEBHOOK_DESCRIPTION_MAX ? t`Use at most ${max} characters` : null),
    },
  });

  // The list is read again after a refusal too: someone else may have changed or deleted the webhook.
  const saving = useWrite(
    (body: Pick<WebhookJson, 'url' | 'events' | 'description' | 'enabled'>) =>
      webhook
        ? api.patch<WebhookJson>(`/v1/webhooks/${webhook.webhookKey}`, { ...body, version: webhook.version }, { silent: true }).then(() => null)
        : api.post<WebhookCreated>('/v1/webhooks', body, { silent: true }),
    {
      touches: ['webhooks', 'webhookDeliveries'],
      refreshOnFailure: true,
      success: () => (webhook ? t`Webhook saved` : ''),
      onSuccess: (created) => (created ? onCreated(created) : onSaved()),
      onError: (error) => {
        const issues = showRefusal(form, FIELDS, error);
        // Someone else changed or deleted it: the list shows what is there now.
        if (!Object.keys(issues).length && error instanceof RequestError && (error.status === 409 || error.status === 404)) onSaved();
      },
    },
  );
  const submit = form.onSubmit((values) =>
    saving.mutate({ url: values.url.trim(), events: values.events as WebhookEventType[], description: values.description.trim(), enabled: values.enabled }),
  );

  return (
    <Modal opened onClose={onClose} title={webhook ? t`Edit webhook` : t`Add webhook`} size={760} centered data-testid="webhook-form">
      <form onSubmit={submit} noValidate>
        <Stack>
          <TextInput
            label={t`Address`}
            description={t`An https address on the public internet; it receives each event as a signed POST request.`}
            placeholder="https://example.com/hooks/pass-cloud"
            required
            maxLength={WEBHOOK_URL_MAX}
            autoComplete="off"
            {...form.getInputProps('url')}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            data-testid="webhook-url"
          />
          <Checkbox.Group label={t`Events`} required {...form.getInputProps('events')} data-testid="webhook-events">
            <SimpleGrid cols={{ base: 1, sm: 3 }} spacing="xs" verticalSpacing="sm" mt="xs">
              {WEBHOOK_EVENT_TYPES.map((type) => (
                <Checkbox
                  key={type}
                  value={type}
                  label={labels.event[type]}
                  description={
                    <Code fz="xs" bg="transparent" p={0}>
                      {type}
                    </Code>
                  }
                  data-testid={`webhook-event-${type}`}
                />
              ))}
            </SimpleGrid>
          </Checkbox.Group>
          <Group gap="xs">
            <Button size="compact-xs" variant="subtle" onClick={() => form.setFieldValue('events', [...WEBHOOK_EVENT_TYPES])} data-testid="webhook-events-all">
              <Trans>Choose all</Trans>
            </Button>
            <Button size="compact-xs" variant="subtle" onClick={() => form.setFieldValue('events', [])}>
              <Trans>Clear</Trans>
            </Button>
          </Group>
          <Textarea
            label={t`Description`}
            description={t`What receives the events, for the people who manage them.`}
            autosize
            minRows={2}
            maxRows={4}
            maxLength={WEBHOOK_DESCRIPTION_MAX}
            {...form.getInputProps('description')}
            inputWrapperOrder={['label', 'input', 'description', 'error']}
            data-testid="webhook-description"
          />
          <Switch
            label={t`Active`}
            description={t`While it is off, no events are sent to it.`}
            {...form.getInputProps('enabled', { type: 'checkbox' })}
            data-testid="webhook-enabled"
          />
          {webhook?.disabledReason === 'failing' && !form.values.enabled && (
            <Text size="sm" c="orange.8">
              <Trans>The service turned this webhook off because its deliveries kept failing. Turn it on once the receiver works again.</Trans>
            </Text>
          )}
          <FormButtons name="webhook" onCancel={onClose} saving={saving.isPending}>
            {webhook ? <Trans>Save</Trans> : <Trans>Add webhook</Trans>}
          </FormButtons>
        </Stack>
      </form>
    </Modal>
  );
}
