/** Rules about authorizations that need no I/O. */

import { BOTH_LISTS_NAMES_MAX, type BothLists, type SetType } from '#contract/authorities';

/** What `bothLists` reads of a device's authorization. */
export interface ListEntry {
  setType: number;
  personKey: string;
  personName: string;
  revoked: boolean;
  validTo?: string | undefined;
}

/**
 * Of `personKeys`, the people a grant of `setType` would put on both lists of one device, given
 * the device's authorizations: those in the other list, not revoked and not ended before `now`
 * (ISO). Named in name order, at most BOTH_LISTS_NAMES_MAX of them.
 */
export function bothLists(onDevice: readonly ListEntry[], setType: SetType, personKeys: ReadonlySet<string>, now: string): BothLists {
  const other = setType === 0 ? 1 : 0;
  const found = onDevice
    .filter((a) => a.setType === other && !a.revoked && (!a.validTo || a.validTo >= now) && personKeys.has(a.personKey))
    .sort((a, b) => a.personName.localeCompare(b.personName) || a.personKey.localeCompare(b.personKey));
  return { count: found.length, people: found.slice(0, BOTH_LISTS_NAMES_MAX).map((a) => ({ personKey: a.personKey, name: a.personName })) };
}
