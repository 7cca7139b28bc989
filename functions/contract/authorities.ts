import * as z from 'zod';
import { FACE_LISTS, SYNC_FAILURES, SYNC_STATES, type FaceList, type SyncFailure, type SyncState } from './protocol.ts';

/**
 * Authorizations (`/v1/authorities`): which people a face terminal lets pass (setType 0, pass
 * authority) or watches for (setType 1, blacklist monitoring). One authorization is one person on
 * one device with a validity; each is synced to its device on its own and carries its sync state.
 */
export const SET_TYPES = [0, 1] as const;
export type SetType = (typeof SET_TYPES)[number];
/** The face list on the terminal each setType fills. */
export const LIST_OF_SET_TYPE: Record<SetType, FaceList> = { 0: 'pass', 1: 'blacklist' };
export const SET_TYPE_OF_LIST: Record<FaceList, SetType> = { pass: 0, blacklist: 1 };
export { FACE_LISTS, SYNC_FAILURES, SYNC_STATES, type SyncFailure, type SyncState };

/** Whether a validity holds now: `active` (permanent or now inside the period), `upcoming` or `expired`. */
export const VALIDITY_STATES = ['active', 'upcoming', 'expired'] as const;
export type ValidityState = (typeof VALIDITY_STATES)[number];

/** People and devices one grant may name: 2,000 people on 100 devices at most. */
export const GRANT_MAX_PEOPLE = 2000;
export const GRANT_MAX_DEVICES = 100;

const key = z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' });
/** A calendar day `YYYY-MM-DD` in the company's time zone. */
const day = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, { message: 'issue.dateFormat' });

/**
 * `{ permanent: true }` or a period of whole days, `start` to `end` inclusive, in the company's
 * time zone; `end` may not be earlier than today (checked by the server against its clock).
 */
export const validityBody = z.union([
  z.object({ permanent: z.literal(true) }).strict(),
  z
    .object({ permanent: z.literal(false).optional(), start: day, end: day })
    .strict()
    .refine((v) => v.start <= v.end, { message: 'authorities.endBeforeStart', path: ['end'] }),
]);
export type Validity = z.output<typeof validityBody>;

const setType = z.union([z.literal(0), z.literal(1)]);

/**
 * `POST /v1/authorities`: people (by key, or every member of person groups / departments) on
 * devices (by key, or every device of device groups). At least one person and one device after
 * expansion; a person already authorized on a device gets the new validity.
 */
export const grantBody = z
  .object({
    setType,
    personKeys: z.array(key).max(GRANT_MAX_PEOPLE).default([]),
    personGroupKeys: z.array(key).max(50).default([]),
    departmentKeys: z.array(key).max(50).default([]),
    deviceKeys: z.array(key).max(GRANT_MAX_DEVICES).default([]),
    deviceGroupKeys: z.array(key).max(50).default([]),
    validity: validityBody,
  })
  .strict();
export type GrantBody = z.output<typeof grantBody>;

/** `POST /v1/authorities/check`: the same selection, answered with each device's face count against its capacity. */
export const grantCheckBody = grantBody.omit({ validity: true });

/** `GET /v1/authorities/jobs/{jobKey}`: a large grant written in the background (POST answered 202 with its key). */
export interface GrantJobView {
  jobKey: string;
  state: 'queued' | 'running' | 'done' | 'failed';
  /** Person × device pairs written so far, of `total`. */
  done: number;
  total: number;
  createTime: string;
  finishTime: string | null;
  /** Why a failed job stopped, in the caller's language. */
  error: string | null;
}

/** A check names at most this many people on both lists per device; `count` says how many there are. */
export const BOTH_LISTS_NAMES_MAX = 20;

/**
 * Of the selected people, those the grant would put on both lists of a device: for a pass
 * authority grant (setType 0) the ones already on the device's blacklist, for a blacklist grant
 * (setType 1) the ones holding pass authority there (authorizations not revoked whose validity has
 * not ended). The blacklist wins: the device refuses them.
 */
export interface BothLists {
  /** How many people, all of them. */
  count: number;
  /** The first BOTH_LISTS_NAMES_MAX of them by name. */
  people: { personKey: string; name: string }[];
}

export interface CapacityCheck {
  people: number;
  devices: {
    deviceKey: string;
    name: string;
    /** Faces authorized on the device now, of both lists. */
    authorized: number;
    /** Of the selected people, how many are new on the device. */
    adding: number;
    /** What the device last reported it can hold; null when it has not said. */
    capacity: number | null;
    exceeds: boolean;
    /** Who would be on both lists of the device; null when the caller may not see the other list. */
    bothLists: BothLists | null;
  }[];
}

/** An authorization's key: `<setType>.<personKey>.<deviceKey>`. */
export const AUTHORITY_KEY = /^[01]\.[0-9a-z]{8,32}\.[0-9a-z]{8,32}$/;
export const authorityKeyParams = z.object({ authorityKey: z.string().regex(AUTHORITY_KEY, { message: 'error.itemNotFound' }) });
export const authorityKeyOf = (setType: SetType, personKey: string, deviceKey: string): string => `${setType}.${personKey}.${deviceKey}`;

export const authorityListQuery = z.object({
  setType: z.coerce.number().pipe(setType).default(0),
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: z.string().max(500).optional(),
  personKey: key.optional(),
  deviceKey: key.optional(),
  keyword: z.string().trim().max(64).optional(),
  validity: z.enum(VALIDITY_STATES).optional(),
  state: z.enum(SYNC_STATES).optional(),
});

/** `GET /v1/authorities/sync`: the sync state of each pair, for a person, a device or both; `setType` absent gives both lists. */
export const syncQuery = z.object({
  personKey: key.optional(),
  deviceKey: key.optional(),
  setType: z.coerce.number().pipe(setType).optional(),
  state: z.enum(SYNC_STATES).optional(),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional(),
});

export const authorityPatchBody = z.object({ validity: validityBody, version: z.number().int().min(1) }).strict();
export const authorityDeleteQuery = z.object({ version: z.coerce.number().int().min(1) });
/**
 * `POST /v1/authorities/sync/retry`: sends these authorizations to their devices again, or every
 * one that failed of a device or person (`failedOf`), a part per request: `more` says to ask again.
 */
export const retryBody = z
  .object({
    authorityKeys: z.array(z.string().regex(AUTHORITY_KEY, { message: 'error.itemNotFound' })).min(1).max(200).optional(),
    failedOf: z
      .object({ personKey: key.optional(), deviceKey: key.optional(), setType: setType.optional() })
      .strict()
      .refine((o) => !!(o.personKey || o.deviceKey), { message: 'authorities.retryWhose' })
      .optional(),
  })
  .strict()
  .refine((b) => !!b.authorityKeys !== !!b.failedOf, { message: 'authorities.retryWhich', path: ['authorityKeys'] });

/** What a retry answers: how many were sent again, and whether failed ones are left to send (`failedOf`). */
export interface RetryResult {
  resent: number;
  more: boolean;
}

/** One authorization as lists show it. */
export interface AuthorityItem {
  authorityKey: string;
  setType: SetType;
  personKey: string;
  personKind: 'employee' | 'visitor';
  personId: string;
  name: string;
  /** A presigned link to the person's photo, null when there is none. */
  avatar: string | null;
  deviceKey: string;
  deviceName: string;
  /** Null for a permanent authorization. */
  start: string | null;
  end: string | null;
  validityState: ValidityState;
  syncState: SyncState;
  syncReason: SyncFailure | null;
  /** The device's own words on why the sync failed (not translated), null when it gave none. */
  syncDetail: string | null;
  /** When the device last reported on it (synced or failed), else when it was changed. */
  syncTime: string;
  createTime: string;
  version: number;
}

export interface AuthorityPage {
  items: AuthorityItem[];
  nextCursor: string | null;
}
