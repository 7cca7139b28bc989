import * as z from 'zod';
import { itemKey } from './fields.ts';
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

const key = itemKey;
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
    scheduleKey: key
      .nullable()
      .optional()
      .meta({ description: 'Pass authority only: the access schedule (`/v1/schedules`) within the validity; null or absent: at any time' }),
  })
  .strict();
export type GrantBody = z.output<typeof grantBody>;

/** `POST /v1/authorities/check`: the same selection, answered with each device's face count against its capacity. */
export const grantCheckBody = grantBody.omit({ validity: true });

/**
 * What `POST /v1/authorities` answers: how many people, devices and authorizations the selection
 * came to. Within the request (201) `authorities` are those written; a grant too large for one
 * request is written in the background (202), with `jobKey` to follow it.
 */
export const grantAnswer = z.object({
  jobKey: z.string().optional().meta({ description: 'A grant written in the background (202) only: read its progress at `GET /v1/authorities/jobs/{jobKey}`' }),
  people: z.number().int().meta({ description: 'People selected, after groups and departments are expanded' }),
  devices: z.number().int().meta({ description: 'Devices selected, after device groups are expanded' }),
  authorities: z.number().int().meta({ description: 'Person × device pairs: written (201), or to be written by the job (202)' }),
});
export type GrantAnswer = z.output<typeof grantAnswer>;

/** `GET /v1/authorities/jobs/{jobKey}`: a large grant written in the background (POST answered 202 with its key). */
export const grantJobView = z.object({
  jobKey: z.string(),
  state: z.enum(['queued', 'running', 'done', 'failed']),
  done: z.number().int().meta({ description: 'Person × device pairs written so far, of `total`' }),
  total: z.number().int(),
  createTime: z.iso.datetime(),
  finishTime: z.iso.datetime().nullable().meta({ description: 'When the job ended; null while it runs' }),
  error: z.string().nullable().meta({ description: 'Why a failed job stopped, in the caller’s language; null unless `state` is `failed`' }),
});
export type GrantJobView = z.output<typeof grantJobView>;

/** A check names at most this many people on both lists per device; `count` says how many there are. */
export const BOTH_LISTS_NAMES_MAX = 20;

/**
 * Of the selected people, those the grant would put on both lists of a device: for a pass
 * authority grant (setType 0) the ones already on the device's blacklist, for a blacklist grant
 * (setType 1) the ones holding pass authority there (authorizations not revoked whose validity has
 * not ended). The blacklist wins: the device refuses them.
 */
const bothListsSchema = z.object({
  count: z.number().int().meta({ description: 'How many people, all of them' }),
  people: z.array(z.object({ personKey: z.string(), name: z.string() })).meta({ description: `The first ${BOTH_LISTS_NAMES_MAX} of them by name` }),
});
export type BothLists = z.output<typeof bothListsSchema>;

/** What `POST /v1/authorities/check` answers: each selected device's faces against its capacity. */
export const capacityCheck = z.object({
  people: z.number().int().meta({ description: 'People selected, after groups and departments are expanded' }),
  devices: z.array(
    z.object({
      deviceKey: z.string(),
      name: z.string(),
      authorized: z.number().int().meta({ description: 'Faces authorized on the device now, of both lists' }),
      adding: z.number().int().meta({ description: 'Of the selected people, how many are new on the device' }),
      capacity: z.number().int().nullable().meta({ description: 'How many faces the device last reported it can hold; null when it has not said' }),
      exceeds: z.boolean().meta({ description: '`authorized` plus `adding` is more than `capacity`' }),
      bothLists: bothListsSchema
        .nullable()
        .meta({
          description:
            'Of the selected people, those the grant would put on both lists of the device (the blacklist wins: the device refuses them); null when the caller may not see the other list',
        }),
    }),
  ),
});
export type CapacityCheck = z.output<typeof capacityCheck>;

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
  scheduleKey: key.optional().meta({ description: 'Only the authorizations that use this access schedule' }),
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

export const authorityPatchBody = z
  .object({
    validity: validityBody,
    scheduleKey: key.nullable().optional().meta({ description: 'Pass authority only: the access schedule; null: at any time; absent: unchanged' }),
    version: z.number().int().min(1),
  })
  .strict();
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
export const retryResult = z.object({
  resent: z.number().int().meta({ description: 'Authorizations sent to their devices again' }),
  more: z.boolean().meta({ description: 'Failed ones are left to send (`failedOf`): ask again' }),
});
export type RetryResult = z.output<typeof retryResult>;

/** One authorization as lists show it (and as `PATCH /v1/authorities/{authorityKey}` answers it). */
export const authorityItem = z.object({
  authorityKey: z.string().meta({ description: '`<setType>.<personKey>.<deviceKey>`' }),
  setType,
  personKey: z.string(),
  personKind: z.enum(['employee', 'visitor']),
  personId: z.string(),
  name: z.string(),
  avatar: z.string().nullable().meta({ description: 'A short-lived link to the person’s photo; null when there is none' }),
  deviceKey: z.string(),
  deviceName: z.string().meta({ description: 'Empty when the device is gone' }),
  start: z.iso.date().nullable().meta({ description: 'The first day of the validity, in the company’s time zone; null for a permanent authorization' }),
  end: z.iso.date().nullable().meta({ description: 'The last day of the validity, in the company’s time zone; null for a permanent authorization' }),
  validityState: z.enum(VALIDITY_STATES),
  scheduleKey: z.string().nullable().meta({ description: 'The access schedule within the validity; null: at any time' }),
  scheduleName: z.string().nullable().meta({ description: 'The schedule’s name; null without one' }),
  syncState: z.enum(SYNC_STATES),
  syncReason: z.enum(SYNC_FAILURES).nullable().meta({ description: 'Why the device refused it; null unless `syncState` is `failed` with a known reason' }),
  syncDetail: z.string().nullable().meta({ description: 'The device’s own words on why the sync failed (not translated); null when it gave none' }),
  syncTime: z.iso.datetime().meta({ description: 'When the device last reported on it (synced or failed), else when it was changed' }),
  createTime: z.iso.datetime(),
  version: z.number().int().meta({ description: 'Send it back to change or revoke the authorization' }),
});
export type AuthorityItem = z.output<typeof authorityItem>;

const nextCursor = z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' });

/** A page of authorizations (`GET /v1/authorities`). */
export const authorityPage = z.object({ items: z.array(authorityItem), nextCursor });
export type AuthorityPage = z.output<typeof authorityPage>;

/** `GET /v1/authorities/sync`: a page of authorizations, and the counts by sync state of everything the filter covers. */
export const authoritySyncPage = z.object({
  items: z.array(authorityItem),
  nextCursor,
  counts: z
    .object({ pending: z.number().int(), synced: z.number().int(), failed: z.number().int() })
    .meta({ description: 'Authorizations by sync state over everything the filter covers, not the page alone' }),
});
export type AuthoritySyncPage = z.output<typeof authoritySyncPage>;
