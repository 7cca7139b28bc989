import { Anchor, Group, Text } from '@mantine/core';
import { Trans } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import type { SeatSummary } from '@passcloud/functions/contract/licences';
import { formatDate, formatNumber } from '../../app/format.ts';
import { useItem } from '../../app/queries.ts';
import { getAuthorities } from '../../app/session.ts';

/** Seats follow binds and unbinds made on the terminals, so they are read again as the list is. */
const SEATS_REFRESH_MS = 15_000;
const LICENCES_PATH = '/settings/licence';

/**
 * The licence seats left for new devices, beside the binding code: every bound face terminal or
 * intercom takes one, and without one a terminal cannot bind. Links to the licences for those who
 * may open them.
 */
export function SeatsLine() {
  const seats = useItem<SeatSummary>({ resource: 'licences', path: '/v1/licences/seats', refreshMs: SEATS_REFRESH_MS }).item;
  if (!seats) return null;
  const remaining = formatNumber(seats.remaining);
  const total = formatNumber(seats.total);
  const trialEnd = formatDate(seats.trial.expireTime);
  return (
    <Group gap={6} wrap="wrap" data-testid="device-seats" data-remaining={seats.remaining}>
      <Text size="sm" c={seats.remaining > 0 ? 'dimmed' : 'red'}>
        {seats.total === 0 ? (
          <Trans>No licence seat is in force: no terminal can bind until a licence is activated.</Trans>
        ) : (
          <Trans>
            Licence seats left: {remaining} of {total}. Each bound face terminal or intercom takes one.
          </Trans>
        )}{' '}
        {seats.trial.state === 'active' && <Trans>The free trial ends on {trialEnd}.</Trans>}
      </Text>
      {getAuthorities().includes('settings:licence') && (
        <Anchor component={Link} to={LICENCES_PATH} size="sm" data-testid="device-seats-link">
          <Trans>Licences</Trans>
        </Anchor>
      )}
    </Group>
  );
}
