import { useState } from 'react';
import { Button, Group, MultiSelect, Stack, Text } from '@mantine/core';
import type { UseQueryResult } from '@tanstack/react-query';
import { Trans, useLingui } from '@lingui/react/macro';
import { ListFrame, type Column } from '../../../components/ListFrame.tsx';
import { Truncated } from '../../../components/Truncated.tsx';
import { wholeList } from '../../../app/queries.ts';
import type { PickerDevice, PickerGroup } from '../../../app/pickers.ts';
import { OnlineBadge } from '../../devices/parts.tsx';
import { KeywordInput } from '../../../components/KeywordInput.tsx';
import { GroupFilter } from '../../../components/GroupFilter.tsx';

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
  error,
}: {
  value: DevicesChoice;
  onChange: (value: DevicesChoice) => void;
  devices: UseQueryResult<PickerDevice[]>;
  groups: PickerGroup[];
  error: string | null;
}) {
  const { t } = useLingui();
  const [keyword, setKeyword] = useState('');
  const [groupKey, setGroupKey] = useState('');
  const word = keyword.trim().toLowerCase();
  const shown = (devices.data ?? []).filter((d) => (!groupKey || d.groupKey === groupKey) && (!word || d.name.toLowerCase().includes(word) || d.serial.toLowerCase().includes(word)));
  const allChecked = shown.length > 0 && shown.every((d) => value.deviceKeys.has(d.deviceKey));
  const groupName = (key: string | null) => groups.find((g) => g.groupKey === key)?.name ?? '';
  const choose = (deviceKeys: Set<string>) => onChange({ ...value, deviceKeys });

  const columns: Column<PickerDevice>[] = [
    { key: 'name', title: t`Device name`, render: (device) => <Truncated text={device.name} maw={220} /> },
    { key: 'serial', title: t`Serial number`, render: (device) => device.serial },
    { key: 'group', title: t`Group`, render: (device) => <Truncated text={groupName(device.groupKey)} maw={160} /> },
    { key: 'state', title: t`State`, render: (device) => <OnlineBadge online={device.online} /> },
  ];

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
        <KeywordInput hint={t`Device name or serial number`} value={keyword} onChange={setKeyword} testId="wizard-device-keyword" />
        <GroupFilter label={t`Device group`} groups={groups} value={groupKey} onChange={setGroupKey} />
        <Button variant="default" disabled={shown.length === 0 || allChecked} onClick={() => choose(new Set([...value.deviceKeys, ...shown.map((d) => d.deviceKey)]))} data-testid="wizard-devices-all">
          <Trans>Select all</Trans>
        </Button>
      </Group>
      <ListFrame
        list={wholeList(devices, shown)}
        name="wizard-devices"
        columns={columns}
        rowKey={(device) => device.deviceKey}
        rowProps={(device) => ({ 'data-testid': 'wizard-device-row', 'data-key': device.deviceKey })}
        empty={<Text c="dimmed">{t`This company has no devices yet.`}</Text>}
        filtered={!!(word || groupKey)}
        selection={{ selected: value.deviceKeys, onChange: choose, label: (device) => device.name }}
        paged={false}
      />
      {error && (
        <Text size="sm" c="red" role="alert" data-testid="wizard-devices-error">
          {error}
        </Text>
      )}
    </Stack>
  );
}
