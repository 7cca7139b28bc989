import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, MultiSelect, Radio, SegmentedControl, Stack, Text, Textarea, Tooltip } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { useQuery } from '@tanstack/react-query';
import {
  DOOR_MODE_REASON_MAX,
  type DeviceDoorMode,
  type DoorMode,
  type DoorModeBody,
  type DoorModeScope,
  type ExemptionsAnswer,
} from '@passcloud/functions/contract/doorModes';
import { api } from '../../app/api.ts';
import { pickDevices, pickGroups, pickedKey, type PickerPerson, type PickerPage } from '../../app/pickers.ts';
import { useItem, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';

/** The query resource of door modes: a change reads the devices again too. */
export const DOOR_MODES_RESOURCE = 'doorModes';

/** The names of the modes, as the console says them. */
export function useModeNames(): Record<DoorMode, string> {
  const { t } = useLingui();
  return { normal: t`Normal`, lockdown: t`Lockdown`, open: t`Doors held open` };
}

type ScopeKind = 'all' | 'groups' | 'devices';

/**
 * Sets a door mode (or ends one: `normal`) for every face terminal, device groups or chosen
 * terminals, with a reason; the server asks for the password before it changes anything.
 */
export function DoorModeDialog({ opened, onClose, preset }: { opened: boolean; onClose: () => void; preset?: { mode: DoorMode; scope: DoorModeScope } }) {
  const { t } = useLingui();
  const names = useModeNames();
  const [mode, setMode] = useState<DoorMode>('lockdown');
  const [kind, setKind] = useState<ScopeKind>('all');
  const [groupKeys, setGroupKeys] = useState<string[]>([]);
  const [deviceKeys, setDeviceKeys] = useState<string[]>([]);
  const [reason, setReason] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const groups = useQuery({ queryKey: ['pickers', 'groups', 'device'], queryFn: () => pickGroups('device', { silent: true, quiet: true }), enabled: opened });
  const devices = useQuery({ queryKey: ['pickers', 'devices'], queryFn: () => pickDevices(Infinity, { silent: true, quiet: true }), enabled: opened });

  useEffect(() => {
    if (!opened) return;
    const scope = preset?.scope ?? { all: true };
    setMode(preset?.mode ?? 'lockdown');
    setKind('groupKeys' in scope ? 'groups' : 'deviceKeys' in scope ? 'devices' : 'all');
    setGroupKeys('groupKeys' in scope ? scope.groupKeys : []);
    setDeviceKeys('deviceKeys' in scope ? scope.deviceKeys : []);
    setReason('');
    setErrors({});
  }, [opened, preset]);

  const send = useWrite((body: DoorModeBody) => api.put<{ mode: DoorMode; devices: number }>('/v1/doorModes', body, { silent: true }), {
    touches: [DOOR_MODES_RESOURCE, 'devices'],
    success: ({ mode: set, devices: count }) => (set === 'normal' ? t`Door mode ended on ${count} terminals` : t`Door mode set on ${count} terminals`),
    onSuccess: onClose,
    onError: (error) => {
      if (error instanceof RequestError && error.issues.length) {
        setErrors(Object.fromEntries(error.issues.map((issue) => [issue.path.replace(/^scope\..*/, 'scope'), issue.message])));
      } else if (error instanceof RequestError && !error.shown) setErrors({ form: error.message });
    },
  });

  const scope: DoorModeScope = kind === 'all' ? { all: true } : kind === 'groups' ? { groupKeys } : { deviceKeys };
  const submit = () => {
    const found: Record<string, string> = {};
    if (!reason.trim()) found.reason = t`Give a reason`;
    if (kind === 'groups' && groupKeys.length === 0) found.scope = t`Choose at least one group`;
    if (kind === 'devices' && deviceKeys.length === 0) found.scope = t`Choose at least one terminal`;
    setErrors(found);
    if (Object.keys(found).length === 0) send.mutate({ mode, scope, reason: reason.trim() });
  };

  return (
    <Modal opened={opened} onClose={onClose} title={t`Door mode`} size="lg" data-testid="door-mode-dialog">
      <Stack>
        <Text size="sm" c="dimmed">
          <Trans>
            Lockdown refuses everyone but the people on the exemption list; doors held open keep the relay open for an evacuation. Terminals still recognise and
            record every face. Normal ends either.
          </Trans>
        </Text>
        <SegmentedControl
          value={mode}
          onChange={(value) => setMode(value as DoorMode)}
          data={(['lockdown', 'open', 'normal'] as const).map((value) => ({ value, label: names[value] }))}
          data-testid="door-mode-mode"
        />
        <Radio.Group label={t`Terminals`} value={kind} onChange={(value) => setKind(value as ScopeKind)} error={errors.scope}>
          <Group mt="xs">
            <Radio value="all" label={t`All terminals`} data-testid="door-mode-scope-all" />
            <Radio value="groups" label={t`Device groups`} data-testid="door-mode-scope-groups" />
            <Radio value="devices" label={t`Chosen terminals`} data-testid="door-mode-scope-devices" />
          </Group>
        </Radio.Group>
        {kind === 'groups' && (
          <MultiSelect
            label={t`Device groups`}
            data={(groups.data ?? []).map((g) => ({ value: g.groupKey, label: g.name }))}
            value={groupKeys}
            onChange={setGroupKeys}
            searchable
            data-testid="door-mode-groups"
          />
        )}
        {kind === 'devices' && (
          <MultiSelect
            label={t`Terminals`}
            data={(devices.data ?? []).map((d) => ({ value: d.deviceKey, label: d.name }))}
            value={deviceKeys}
            onChange={setDeviceKeys}
            searchable
            data-testid="door-mode-devices"
          />
        )}
        <Textarea
          label={t`Reason`}
          required
          autosize
          minRows={2}
          maxLength={DOOR_MODE_REASON_MAX}
          value={reason}
          onChange={(event) => setReason(event.currentTarget.value)}
          error={errors.reason}
          data-testid="door-mode-reason"
        />
        {errors.form && (
          <Alert color="red" variant="light">
            {errors.form}
          </Alert>
        )}
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            <Trans>Cancel</Trans>
          </Button>
          <Button color={mode === 'normal' ? 'blue' : 'red'} onClick={submit} loading={send.isPending} data-testid="door-mode-submit">
            {mode === 'normal' ? <Trans>End the door mode</Trans> : <Trans>Set the door mode</Trans>}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** The people a lockdown lets pass: chosen among the company's employees, saved after the password. */
export function ExemptionsDialog({ opened, onClose }: { opened: boolean; onClose: () => void }) {
  const { t } = useLingui();
  const current = useItem<ExemptionsAnswer>({ resource: DOOR_MODES_RESOURCE, path: '/v1/doorModes/exemptions', enabled: opened });
  const [keyword, setKeyword] = useState('');
  const [chosen, setChosen] = useState<{ value: string; label: string }[]>([]);
  const people = useQuery({
    queryKey: ['pickers', 'people', 'employee', keyword],
    queryFn: () =>
      api.get<PickerPage<PickerPerson>>('/v1/pickers/people', {
        silent: true,
        quiet: true,
        query: { type: 'employee', keyword: keyword || undefined, pageSize: 50 },
      }),
    enabled: opened,
  });
  useEffect(() => {
    if (opened && current.item) setChosen(current.item.people.map((p) => ({ value: p.personKey, label: p.name })));
  }, [opened, current.item]);

  const save = useWrite((personKeys: string[]) => api.put<ExemptionsAnswer>('/v1/doorModes/exemptions', { personKeys, version: current.item?.version ?? 0 }), {
    touches: [DOOR_MODES_RESOURCE],
    success: t`Exemption list saved`,
    onSuccess: onClose,
    refreshOnFailure: true,
  });

  const options = new Map(chosen.map((o) => [o.value, o]));
  for (const person of people.data?.items ?? []) options.set(pickedKey(person), { value: pickedKey(person), label: `${person.name} (${person.personId})` });
  return (
    <Modal opened={opened} onClose={onClose} title={t`Exempt from lockdown`} size="lg" data-testid="exemptions-dialog">
      <Stack>
        <Text size="sm" c="dimmed">
          <Trans>These people (security staff, say) still pass a terminal in lockdown where they hold pass authority. At most 200.</Trans>
        </Text>
        <MultiSelect
          label={t`People`}
          data={[...options.values()]}
          value={chosen.map((o) => o.value)}
          onChange={(values) => setChosen(values.map((value) => options.get(value)!))}
          searchable
          searchValue={keyword}
          onSearchChange={setKeyword}
          filter={({ options: all }) => all}
          maxValues={200}
          data-testid="exemptions-people"
        />
        <Group justify="flex-end" gap="xs">
          <Button variant="default" onClick={onClose}>
            <Trans>Cancel</Trans>
          </Button>
          <Button onClick={() => save.mutate(chosen.map((o) => o.value))} loading={save.isPending} disabled={!current.item} data-testid="exemptions-save">
            <Trans>Save</Trans>
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}

/** A terminal's door mode in the device list and detail: nothing while normal and applied, else the mode and whether the terminal applied it. */
export function DoorModeBadge({ doorMode }: { doorMode: DeviceDoorMode }) {
  const { t } = useLingui();
  const names = useModeNames();
  const applied = (doorMode.applied ?? 'normal') === doorMode.desired;
  if (doorMode.desired === 'normal' && applied) return null;
  const desired = names[doorMode.desired];
  const label = applied ? desired : t`${desired} (not applied yet)`;
  return (
    <Tooltip
      label={
        applied ? t`The terminal applies this door mode` : t`The terminal has not applied this door mode yet; an offline terminal applies it when it connects`
      }
    >
      <Badge
        color={doorMode.desired === 'normal' ? 'gray' : 'red'}
        variant={applied ? 'filled' : 'light'}
        data-testid="door-mode-badge"
        data-desired={doorMode.desired}
        data-applied={doorMode.applied ?? ''}
      >
        {label}
      </Badge>
    </Tooltip>
  );
}
