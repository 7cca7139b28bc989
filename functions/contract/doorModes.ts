import * as z from 'zod';
import { itemKey } from './fields.ts';

/**
 * Door modes (`/v1/doorModes`, code `pass:device`): an administrator overrides how the doors of
 * all face terminals, of device groups or of chosen terminals behave, for an emergency:
 *
 * - `normal`: each terminal decides as its settings and face library say;
 * - `lockdown`: nobody passes but the people on the company's exemption list (security staff);
 *   every face is still recognised and recorded, refused with the reason `lockdown`;
 * - `open`: the relay is held open (evacuation); faces are still recognised and recorded.
 *
 * The mode travels in each terminal's shadow (DOOR_MODE_SHADOW_KEY), which the terminal reports
 * back once applied; who is exempt travels by HTTPS (`GET /v1/deviceSync/doorModeExemptions`),
 * named by a short token in the shadow (DOOR_EXEMPT_SHADOW_KEY), so the shadow stays small.
 */
export const DOOR_MODES = ['normal', 'lockdown', 'open'] as const;
export type DoorMode = (typeof DOOR_MODES)[number];

/** The shadow key of the mode the terminal is to apply (desired) and has applied (reported): one of DOOR_MODES. */
export const DOOR_MODE_SHADOW_KEY = 'door_override';
/** The shadow key naming the exemption list's revision: a change tells the terminal to read the list again. */
export const DOOR_EXEMPT_SHADOW_KEY = 'door_exempt';

/** People the exemption list holds at most. */
export const EXEMPTIONS_MAX = 200;
export const DOOR_MODE_REASON_MAX = 200;
/** Groups or terminals one scope names at most. */
export const SCOPE_GROUPS_MAX = 100;
export const SCOPE_DEVICES_MAX = 1000;

const key = itemKey;

export const doorModeScope = z.union([
  z.object({ all: z.literal(true) }).strict(),
  z.object({ groupKeys: z.array(key).min(1, { message: 'doorMode.scopeEmpty' }).max(SCOPE_GROUPS_MAX) }).strict(),
  z.object({ deviceKeys: z.array(key).min(1, { message: 'doorMode.scopeEmpty' }).max(SCOPE_DEVICES_MAX) }).strict(),
]);
export type DoorModeScope = z.output<typeof doorModeScope>;

/** `PUT /v1/doorModes`: the mode for every face terminal of the scope; `normal` ends a mode. */
export const doorModeBody = z
  .object({
    mode: z.enum(DOOR_MODES),
    scope: doorModeScope,
    reason: z.string().trim().min(1, { message: 'doorMode.reasonRequired' }).max(DOOR_MODE_REASON_MAX),
  })
  .strict();
export type DoorModeBody = z.output<typeof doorModeBody>;

const stamp = z.iso.datetime();

/** A terminal's door mode: what the console set, what the terminal last reported, and since when the mode was set. */
export const deviceDoorMode = z.object({
  desired: z.enum(DOOR_MODES),
  applied: z.enum(DOOR_MODES).nullable().meta({ description: 'The mode the terminal last reported it applies; null before it said' }),
  since: stamp.nullable().meta({ description: 'When the desired mode was set; null when it never was (normal)' }),
});
export type DeviceDoorMode = z.output<typeof deviceDoorMode>;

const terminal = z.object({
  deviceKey: z.string(),
  name: z.string(),
  online: z.boolean(),
  desired: z.enum(DOOR_MODES),
  applied: z.enum(DOOR_MODES).nullable(),
});

/** One mode in force: what was set for a scope, by whom, since when, and how far its terminals have applied it. */
const doorModeState = z.object({
  mode: z.enum(DOOR_MODES),
  scope: doorModeScope,
  scopeNames: z.array(z.string()).meta({ description: 'The names of the groups or terminals the scope chose; empty for all' }),
  reason: z.string(),
  setBy: z.string().meta({ description: 'The account that set it' }),
  since: stamp,
  devices: z.array(terminal).meta({ description: 'The terminals still in this mode' }),
});
export type DoorModeState = z.output<typeof doorModeState>;

/** `GET /v1/doorModes`: every mode other than normal in force now, and the terminals that have not applied what they were given. */
export const doorModeAnswer = z.object({
  items: z.array(doorModeState),
  pending: z.array(terminal).meta({ description: 'Terminals whose applied mode is not yet the desired one (offline ones apply it when they connect)' }),
});
export type DoorModeAnswer = z.output<typeof doorModeAnswer>;

/**
 * `GET /v1/doorModes/banner`, for every signed-in account: the modes in force as the banner on
 * every console screen names them, each with how many terminals are in it (which ones, and which
 * have not applied theirs, only to `pass:device` in `GET /v1/doorModes`).
 */
export const doorModeBannerAnswer = z.object({
  items: z.array(doorModeState.omit({ devices: true }).extend({ devices: z.number().int().meta({ description: 'How many terminals are in this mode' }) })),
});
export type DoorModeBannerAnswer = z.output<typeof doorModeBannerAnswer>;

/** `PUT /v1/doorModes`: how many terminals were given the mode. */
export const doorModeSetAnswer = z.object({ mode: z.enum(DOOR_MODES), devices: z.number().int() });

export const exemptionsBody = z
  .object({
    personKeys: z.array(key).max(EXEMPTIONS_MAX, { message: 'doorMode.tooManyExempt' }),
    version: z.number().int().min(0),
  })
  .strict();
export const exemptionsAnswer = z.object({
  people: z.array(z.object({ personKey: z.string(), name: z.string() })),
  version: z.number().int().meta({ description: 'Send it back with a change: a stale one answers 409' }),
});
export type ExemptionsAnswer = z.output<typeof exemptionsAnswer>;

/** `GET /v1/deviceSync/doorModeExemptions`: who passes a lockdown, and the revision the shadow names. */
export const deviceExemptions = z.object({ personKeys: z.array(z.string()).max(EXEMPTIONS_MAX), token: z.string() });
export type DeviceExemptions = z.output<typeof deviceExemptions>;
