import type { CallItem, CallPage, IntercomItem, IntercomKind, IntercomName, IntercomPage, RecordingLink } from '@passcloud/functions/contract/intercom';
import { api } from '../../app/api.ts';

export type { CallItem, CallPage, IntercomItem, IntercomKind, IntercomName, IntercomPage, RecordingLink };

export const INTERCOM_LIST = '/intercom-platform/device/management';
export const intercomScreen = (deviceKey: string): string => `${INTERCOM_LIST}/${deviceKey}`;
export const intercomPath = (deviceKey: string): string => `/v1/intercom/devices/${encodeURIComponent(deviceKey)}`;
export const CALLS_PATH = '/v1/intercom/calls';
export const callPath = (callKey: string): string => `${CALLS_PATH}/${encodeURIComponent(callKey)}`;


/** Intercoms for the call list's device filter (a few pages of names). */
export async function loadIntercomNames(pages = 5): Promise<IntercomName[]> {
  const names: IntercomName[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const page: { items: IntercomName[]; nextCursor: string | null } = await api.get('/v1/intercom/names', {
      query: { pageSize: 200, cursor: cursor ?? undefined },
      silent: true,
      quiet: true,
    });
    names.push(...page.items);
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return names;
}

/** A short-lived link to a call's recording, to play or (`download`) to save. */
export const recordingLink = (callKey: string, download = false) =>
  api.get<RecordingLink>(`${callPath(callKey)}/recording`, { query: download ? { download: 'true' } : {}, silent: true });
