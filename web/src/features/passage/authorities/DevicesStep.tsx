import { useState } from 'react';
import { Button, Center, Checkbox, Group, Loader, MultiSelect, Select, Stack, Table, Text, TextInput } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { ScrollTable } from '../../../components/ScrollTable.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import tables from '../../../components/DataTable.module.css';
import type { PickerDevice, PickerGroup } from '../../../app/pickers.ts';
import { OnlineBadge } from '../../devices/parts.tsx';

export interface DevicesChoice {
  deviceKeys: Set<string>;
  groupKeys: string[];
}

/**
 * Step 2: devices one by one (filtered by name, serial or device group; all shown at once) and
 * whole device groups. An offline device gets its faces when it comes back.
 */
export function DevicesStep({
  value,
  onChange,
  devices,
  groups,
  failed,
  onReload,
  error,
}: {
  value: DevicesChoice;
  onChange: (value: DevicesChoice) => void;
  devices: PickerDevice[] | null;
  groups: PickerGroup[];
  failed: boolean;
  onReload: () => void;
  error: string | null;
}) {
  const { t } = useLingui();
  const [keyword, setKeyword] = useState('');
  const [groupKey, setGroupKey] = useState<string | null>(null);
  const word = keyword.trim().toLowerCase();
  const shown = (devices ?? []).filter((d) => (!groupKey || d.groupKey === groupKey) && (!word || d.name.toLowerCase().includes(word) || d.serial.toLowerCase().includes(word)));
  const allChecked = shown.length > 0 && shown.every((d) => value.deviceKeys.has(d.deviceKey));
  const groupName = (key: string | null) => groups.find((g) => g.groupKey === key)?.name ?? '';

  const set = (keys: string[], on: boolean) => {
    const next = new Set(value.deviceKeys);
    for (const key of keys) {
      if (on) next.add(key);
      else next.delete(key);
    }
    onChange({ ...value, deviceKeys: next });
  };

  return (
    <Stack gap="md" data-testid="wizard-devices">
      <MultiSelect
        label={t`Whole device groups`}
        description={t`Every device in these groups, as they are when you confirm`}
        placeholder={t`None chosen`}
        data={groups.map((g) => ({ value: g.groupKey, label: g.name }))}
        value={value.groupKeys}
        onChange={(groupKeys) => onChange({ ...value, groupKeys })}
        searchable
        clearable
        maw={520}
        data-testid="wizard-device-groups"
      />
      <Group align="flex-end" gap="sm" wrap="wrap">
        <TextInput label={t`Keyword`} placeholder={t`Device name or serial number`} value={keyword} onChange={(e) => setKeyword(e.currentTarget.value)} w={240} data-testid="wizard-device-keyword" />
        <Select label={t`Device group`} placeholder={t`Any group`} clearable data={groups.map((g) => ({ value: g.groupKey, label: g.name }))} value={groupKey} onChange={setGroupKey} w={200} />
        <Button variant="default" disabled={shown.length === 0 || allChecked} onClick={() => set(shown.map((d) => d.deviceKey), true)} data-testid="wizard-devices-all">
          <Trans>Select all</Trans>
        </Button>
      </Group>
      <ScrollTable>
        <Table striped highlightOnHover withRowBorders={false} verticalSpacing={6} className={tables.oneLine} data-testid="wizard-devices-table">
          <Table.Thead>
            <Table.Tr>
              <Table.Th w={40}>
                <Checkbox
                  aria-label={t`Select all`}
                  disabled={shown.length === 0}
                  checked={allChecked}
                  onChange={() =>
                    set(
                      shown.map((d) => d.deviceKey),
                      !allChecked,
                    )
                  }
                />
              </Table.Th>
              <Table.Th>{t`Device name`}</Table.Th>
              <Table.Th>{t`Serial number`}</Table.Th>
              <Table.Th>{t`Group`}</Table.Th>
              <Table.Th>{t`State`}</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {shown.map((device) => (
              <Table.Tr key={device.deviceKey} data-testid="wizard-device-row" data-key={device.deviceKey}>
                <Table.Td>
                  <Checkbox aria-label={device.name} checked={value.deviceKeys.has(device.deviceKey)} onChange={() => set([device.deviceKey], !value.deviceKeys.has(device.deviceKey))} />
                </Table.Td>
                <Table.Td>
                  <Truncated text={device.name} maw={220} />
                </Table.Td>
                <Table.Td>{device.serial}</Table.Td>
                <Table.Td>
                  <Truncated text={groupName(device.groupKey)} maw={160} />
                </Table.Td>
                <Table.Td>
                  <OnlineBadge online={device.online} />
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollTable>
      {!devices && !failed && (
        <Center py="md">
          <Loader size="sm" />
        </Center>
      )}
      {devices && shown.length === 0 && (
        <Text c="dimmed" ta="center" py="md">
          {devices.length === 0 ? t`This company has no devices yet.` : t`Nothing matches these filters.`}
        </Text>
      )}
      {failed && (
        <Stack align="center" py="md" gap="xs">
          <Text c="red">
            <Trans>The list could not be loaded.</Trans>
          </Text>
          <Button variant="light" onClick={onReload}>
            <Trans>Retry</Trans>
          </Button>
        </Stack>
      )}
      {error && (
        <Text size="sm" c="red" role="alert" data-testid="wizard-devices-error">
          {error}
        </Text>
      )}
    </Stack>
  );
}
