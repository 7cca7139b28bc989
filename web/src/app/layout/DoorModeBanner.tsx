import { useMemo, useState } from 'react';
import { Alert, Button, Group, Stack, Text } from '@mantine/core';
import { IconLock, IconDoorExit } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import type { DoorModeAnswer, DoorModeBannerAnswer, DoorModeScope, DoorModeState } from '@passcloud/functions/contract/doorModes';
import { formatDateTime, formatList } from '../format.ts';
import { useItem } from '../queries.ts';
import { getAuthorities } from '../session.ts';
import { DOOR_MODES_RESOURCE, DoorModeDialog, useModeNames } from '../../features/devices/DoorModes.tsx';

/** Door modes are read again this often on every screen: another administrator may set or end one. */
const DOOR_MODES_REFRESH_MS = 10_000;
/** Names a line lists at most; the rest are counted. */
const NAMES_SHOWN = 10;

/** The first names of a list, and how many more there are, as one phrase. */
function useNames(names: string[]): string {
  const { t } = useLingui();
  const more = names.length - NAMES_SHOWN;
  return formatList(more > 0 ? [...names.slice(0, NAMES_SHOWN), t`${more} more`] : names);
}

/**
 * While any terminal is in a door mode other than normal, every screen of every account starts
 * with a banner per mode: which, for which terminals, who set it and since when. The accounts that
 * may set door modes (`pass:device`) also get the action that ends it, and the names of the
 * terminals that have not applied what they were given (offline ones apply it when they connect).
 */
export function DoorModeBanner() {
  const canSet = getAuthorities().includes('pass:device');
  const answer = useItem<DoorModeAnswer | DoorModeBannerAnswer>({
    resource: DOOR_MODES_RESOURCE,
    path: canSet ? '/v1/doorModes' : '/v1/doorModes/banner',
    refreshMs: DOOR_MODES_REFRESH_MS,
  }).item;
  const [ending, setEnding] = useState<DoorModeState['scope'] | null>(null);
  // The dialog starts from this once per opening; a refresh of the banner must not reset what is typed.
  const preset = useMemo(() => (ending ? { mode: 'normal' as const, scope: ending } : undefined), [ending]);
  const pending = answer && 'pending' in answer ? answer.pending : [];
  if (!answer || (answer.items.length === 0 && pending.length === 0)) return null;
  return (
    <Stack gap="xs" mb="md" data-testid="door-mode-banner">
      {answer.items.map((state) => (
        <ModeLine key={`${state.since}${state.mode}`} state={state} onEnd={canSet ? () => setEnding(state.scope) : undefined} />
      ))}
      {pending.length > 0 && <PendingLine names={pending.map((d) => d.name)} />}
      {canSet && <DoorModeDialog opened={!!ending} onClose={() => setEnding(null)} preset={preset} />}
    </Stack>
  );
}

function useScopeText(scope: DoorModeScope, names: string[]): string {
  const { t } = useLingui();
  const list = useNames(names);
  if ('all' in scope) return t`all terminals`;
  if ('groupKeys' in scope) return t`device groups ${list}`;
  return t`terminals ${list}`;
}

function ModeLine({ state, onEnd }: { state: Omit<DoorModeState, 'devices'>; onEnd: (() => void) | undefined }) {
  const modeNames = useModeNames();
  const mode = modeNames[state.mode];
  const scope = useScopeText(state.scope, state.scopeNames);
  const who = state.setBy;
  const since = formatDateTime(state.since);
  const reason = state.reason;
  return (
    <Alert
      color="red"
      variant="filled"
      icon={state.mode === 'lockdown' ? <IconLock size={20} /> : <IconDoorExit size={20} />}
      data-testid="door-mode-banner-item"
      data-mode={state.mode}
    >
      <Group justify="space-between" wrap="nowrap" gap="md">
        <Stack gap={2}>
          <Text fw={700} size="sm">
            <Trans>
              {mode} on {scope}
            </Trans>
          </Text>
          <Text size="sm">
            <Trans>
              Set by {who} since {since}. Reason: {reason}
            </Trans>
          </Text>
        </Stack>
        {onEnd && (
          <Button variant="white" color="red" size="xs" onClick={onEnd} data-testid="door-mode-end">
            <Trans>End</Trans>
          </Button>
        )}
      </Group>
    </Alert>
  );
}

function PendingLine({ names }: { names: string[] }) {
  const list = useNames(names);
  return (
    <Alert color="orange" variant="light" data-testid="door-mode-pending">
      <Text size="sm">
        <Trans>Not applied yet by {list}: an offline terminal applies its door mode when it connects.</Trans>
      </Text>
    </Alert>
  );
}
