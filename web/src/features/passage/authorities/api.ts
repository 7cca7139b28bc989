import { useQuery } from '@tanstack/react-query';
import type { AuthorityItem, AuthorityPage, CapacityCheck, GrantJobView, RetryResult, SetType, SyncState } from '@passcloud/functions/contract/authorities';
import { api } from '../../../app/api.ts';
import type { RequestOptions } from '../../../app/request.ts';
import { pickDevices, type PickerDevice } from '../../../app/pickers.ts';

export type { AuthorityItem, AuthorityPage, CapacityCheck, SetType };
export type { SyncFailure, SyncState, ValidityState } from '@passcloud/functions/contract/authorities';

export interface SyncPage extends AuthorityPage {
  counts: Record<SyncState, number>;
}

/** A validity as the API takes it: permanent, or whole days start to end inclusive (`YYYY-MM-DD`). */
export type ValidityBody = { permanent: true } | { start: string; end: string };

/** What a grant names: people (one by one, whole groups, whole departments) and devices (one by one, whole device groups). */
export interface Selection {
  personKeys: string[];
  personGroupKeys: string[];
  departmentKeys: string[];
  deviceKeys: string[];
  deviceGroupKeys: string[];
}

/** The list and the wizard of each setType (SPEC.md §2): pass authority (0) and blacklist monitoring (1). */
export const SCREENS: Record<SetType, { list: string; setting: string }> = {
  0: { list: '/pass-platform/passage/authority', setting: '/pass-platform/passage/authority/setting' },
  1: { list: '/pass-platform/passage/blacklist/monitoring', setting: '/pass-platform/passage/blacklist/monitoring/setting' },
};
/** The wizard serves both lists; its path says which. */
export const setTypeOfPath = (pathname: string): SetType => (pathname.startsWith(SCREENS[1].list) ? 1 : 0);

/** The codes that open each list; the sync panels show what the account may see. */
export const AUTH_CODE: Record<SetType, string> = { 0: 'pass:authority', 1: 'pass:blacklist' };

/** While any row on screen waits for its device, the rows are read again this often. */
export const PENDING_REFRESH_MS = 3000;

export const authorityPath = (authorityKey: string): string => `/v1/authorities/${encodeURIComponent(authorityKey)}`;

export const listSync = (query: Record<string, string | number | undefined>, options: RequestOptions = {}) =>
  api.get<SyncPage>('/v1/authorities/sync', { ...options, query });
export const retrySync = (authorityKeys: string[]) => api.post<RetryResult>('/v1/authorities/sync/retry', { authorityKeys });
/** Sends every failed authorization of a person or device again: the server takes a part per request until none is left. */
export async function retryAllFailed(of: { personKey?: string; deviceKey?: string }): Promise<number> {
  let resent = 0;
  for (let part = 0; part < 1000; part++) {
    const answer = await api.post<RetryResult>('/v1/authorities/sync/retry', { failedOf: of });
    resent += answer.resent;
    if (!answer.more || answer.resent === 0) break;
  }
  return resent;
}
export const checkCapacity = (setType: SetType, selection: Selection) =>
  api.post<CapacityCheck>('/v1/authorities/check', { setType, ...selection }, { silent: true });
/** A large grant answers 202 with `jobKey`: the server writes it in the background (`grantJob`). */
export const grant = (setType: SetType, selection: Selection, validity: ValidityBody, scheduleKey: string | null = null) =>
  api.post<{ people: number; devices: number; authorities: number; jobKey?: string }>(
    '/v1/authorities',
    { setType, ...selection, validity, ...(setType === 0 ? { scheduleKey } : {}) },
    { silent: true },
  );
export const grantJob = (jobKey: string) => api.get<GrantJobView>(`/v1/authorities/jobs/${encodeURIComponent(jobKey)}`, { silent: true, quiet: true });
export const changeValidity = (item: AuthorityItem, validity: ValidityBody, scheduleKey: string | null = null) =>
  api.patch<AuthorityItem>(
    authorityPath(item.authorityKey),
    { validity, ...(item.setType === 0 ? { scheduleKey } : {}), version: item.version },
    { silent: true },
  );
export const revoke = (item: AuthorityItem) => api.del<void>(authorityPath(item.authorityKey), { query: { version: item.version } });

/** Every device of the company (all pages of the picker), for filters and the wizard's device step. */
export const useAllDevices = () => useQuery({ queryKey: ['pickers', 'devices'], queryFn: (): Promise<PickerDevice[]> => pickDevices() });

/** Today in the browser's calendar, as the API writes days. */
export function today(): string {
  const now = new Date();
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}
