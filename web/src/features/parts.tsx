import type { CSSProperties, ReactNode } from 'react';
import { Anchor, Button, Group, Paper, Stack, Table, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { Trans } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { alertStore } from '../app/layout/AlertArea.tsx';

/**
 * What several console screens show alike: the note of a detail screen whose item is not there,
 * the facts of an item as label and value, the footer of a dialog that only shows, and the way
 * from an alert to its screen.
 */

/** A detail screen's item that does not exist (any more): why, and the way back to its list. */
export function MissingItem({ text, back, testId }: { text: ReactNode; back: string; testId?: string }) {
  return (
    <Paper withBorder p="xl" radius="md">
      <Stack gap="sm" align="flex-start">
        <Text c="dimmed" data-testid={testId}>
          {text}
        </Text>
        <Button variant="light" component={Link} to={back}>
          <Trans>Back to the list</Trans>
        </Button>
      </Stack>
    </Paper>
  );
}

/** Facts of an item, a label and a value a row; long values wrap rather than widen the table. */
export function FactsTable({
  rows,
  labelWidth = '40%',
  spacing = 4,
  wordBreak = 'break-word',
}: {
  rows: readonly (readonly [string, ReactNode])[];
  labelWidth?: string;
  spacing?: number;
  wordBreak?: CSSProperties['wordBreak'];
}) {
  return (
    <Table withRowBorders={false} verticalSpacing={spacing} layout="fixed">
      <Table.Tbody>
        {rows.map(([label, value]) => (
          <Table.Tr key={label}>
            <Table.Th w={labelWidth} fw={500} c="dimmed" style={{ verticalAlign: 'top' }}>
              {label}
            </Table.Th>
            <Table.Td style={{ wordBreak }}>{value}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The end of a form: Cancel, then the submit button labelled `children`. Test ids: `<name>-cancel`, `<name>-submit`. */
export function FormButtons({
  name,
  onCancel,
  saving,
  disabled,
  children,
}: {
  name: string;
  onCancel: () => void;
  saving: boolean;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <Group justify="flex-end" gap="xs">
      <Button variant="default" onClick={onCancel} data-testid={`${name}-cancel`}>
        <Trans>Cancel</Trans>
      </Button>
      <Button type="submit" loading={saving} disabled={disabled} data-testid={`${name}-submit`}>
        {children}
      </Button>
    </Group>
  );
}

/** The end of a dialog that only shows something: its Close button (test id `testId`). */
export function CloseFooter({ onClose, testId }: { onClose: () => void; testId: string }) {
  return (
    <Group justify="flex-end">
      <Button variant="default" onClick={onClose} data-testid={testId}>
        <Trans>Close</Trans>
      </Button>
    </Group>
  );
}

/** The last line of an alert (blacklist hits, abnormal answers): it closes the alert (`id`) and opens the screen behind it. */
export function AlertLink({ id, onOpen, testId, children }: { id: string; onOpen: () => void; testId?: string; children: ReactNode }) {
  return (
    <Anchor
      component="button"
      type="button"
      size="xs"
      ta="start"
      onClick={() => {
        notifications.hide(id, alertStore);
        onOpen();
      }}
      data-testid={testId}
    >
      {children}
    </Anchor>
  );
}
