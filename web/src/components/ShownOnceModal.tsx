import { useState, type ReactNode } from 'react';
import { Alert, Button, Checkbox, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconCheck, IconCopy } from '@tabler/icons-react';
import { Trans } from '@lingui/react/macro';

/**
 * A secret the server answers once (an API key, a webhook's signing secret): a warning, the value
 * (`children` shows it), a copy button, and a "stored" box that must be ticked before the dialog
 * closes. Neither Escape nor a click outside closes it. Test ids: `<testId>-secret-modal`,
 * `-secret-copy`, `-secret-kept`, `-secret-done`.
 */
export function ShownOnceModal(props: {
  title: string;
  warningTitle: string;
  warning: ReactNode;
  value: string;
  copyLabel: ReactNode;
  keptLabel: string;
  testId: string;
  size?: number;
  /** Focus the copy button when the dialog opens. */
  focusCopy?: boolean;
  /** What shows the value and explains it, above the copy button. */
  children: ReactNode;
  /** Notes below the copy button. */
  notes?: ReactNode;
  onClose: () => void;
}) {
  const [kept, setKept] = useState(false);
  const { testId } = props;
  return (
    <Modal
      opened
      onClose={props.onClose}
      title={props.title}
      size={props.size ?? 560}
      centered
      closeOnClickOutside={false}
      closeOnEscape={false}
      withCloseButton={false}
      data-testid={`${testId}-secret-modal`}
    >
      <Stack>
        <Alert color="orange" variant="light" icon={<IconAlertTriangle size={18} />} title={props.warningTitle}>
          <Text size="sm">{props.warning}</Text>
        </Alert>
        {props.children}
        <CopyButton value={props.value}>
          {({ copied, copy }) => (
            <Button
              size="xs"
              variant="light"
              w="max-content"
              leftSection={copied ? <IconCheck size={14} /> : <IconCopy size={14} />}
              onClick={copy}
              {...(props.focusCopy ? { 'data-autofocus': true } : {})}
              data-testid={`${testId}-secret-copy`}
            >
              {copied ? <Trans>Copied</Trans> : props.copyLabel}
            </Button>
          )}
        </CopyButton>
        {props.notes}
        <Checkbox label={props.keptLabel} checked={kept} onChange={(e) => setKept(e.currentTarget.checked)} data-testid={`${testId}-secret-kept`} />
        <Group justify="flex-end">
          <Button disabled={!kept} onClick={props.onClose} data-testid={`${testId}-secret-done`}>
            <Trans>Done</Trans>
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
