import { useState } from 'react';
import { Anchor, Code, Collapse, Stack, Table, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconChevronRight } from '@tabler/icons-react';
import { Trans as TransRuntime } from '@lingui/react';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import type { AuditEntryJson } from '@passcloud/functions/contract/audit';
import { AUDIT_SENTENCES, ITEM_SCREENS, type AuditedRouteKey } from './auditSentences.ts';

/** The item's name in the sentence: a link to its screen while it is there, else the name as it was. */
function ItemName({ item }: { item: NonNullable<AuditEntryJson['item']> }) {
  const screen = item.exists ? ITEM_SCREENS[item.param] : undefined;
  if (screen) {
    return (
      <Anchor component={Link} to={screen(item.key)} fw={600} inherit data-testid="audit-item-link">
        {item.name}
      </Anchor>
    );
  }
  return (
    <Text span fw={600} inherit data-testid="audit-item-name">
      {item.name}
    </Text>
  );
}

/**
 * What an entry did, as a sentence in the reader's language naming the item (linked while it is
 * there); or for a login, why it failed. Under it, on demand, the entry as recorded: the route, the
 * item's key, the fields sent and the browser.
 */
export function AuditAction({ entry, reason }: { entry: AuditEntryJson; reason: string | null }) {
  const { t } = useLingui();
  const [open, setOpen] = useState(false);
  const sentence = entry.action ? AUDIT_SENTENCES[entry.action as AuditedRouteKey] : undefined;
  const name = entry.item ? (
    <ItemName item={entry.item} />
  ) : (
    <Text span c="dimmed" inherit>
      {t`(name not recorded)`}
    </Text>
  );
  const said = sentence?.('');
  const details: [string, string][] = [
    [t`Route`, entry.action ?? ''],
    ...Object.entries(entry.target).map(([param, key]): [string, string] => [param, key]),
    [t`Fields sent`, entry.fields.join(', ')],
    [t`Browser`, entry.userAgent ?? ''],
  ].filter((row): row is [string, string] => !!row[1]);
  return (
    <Stack gap={2} miw={260} maw={420}>
      <Text size="sm" style={{ overflowWrap: 'anywhere' }} data-testid="audit-action">
        {said ? (
          <TransRuntime id={said.id} message={said.message} values={{ ...said.values, name }} />
        ) : entry.action ? (
          // A route the console does not know yet (a newer server): as recorded.
          <Code>{entry.action}</Code>
        ) : (
          (reason ?? '—')
        )}
      </Text>
      {details.length > 0 && (
        <>
          <UnstyledButton onClick={() => setOpen((was) => !was)} aria-expanded={open} fz="xs" c="dimmed" data-testid="audit-details-toggle">
            {open ? <IconChevronDown size={12} /> : <IconChevronRight size={12} />} <Trans>As recorded</Trans>
          </UnstyledButton>
          <Collapse expanded={open}>
            <Table fz="xs" withRowBorders={false} verticalSpacing={2} horizontalSpacing={4} data-testid="audit-details">
              <Table.Tbody>
                {details.map(([label, value]) => (
                  <Table.Tr key={label}>
                    <Table.Td c="dimmed" style={{ whiteSpace: 'nowrap', verticalAlign: 'top' }}>
                      {label}
                    </Table.Td>
                    <Table.Td style={{ overflowWrap: 'anywhere' }}>{label === t`Route` ? <Code>{value}</Code> : value}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Collapse>
        </>
      )}
    </Stack>
  );
}
