import * as z from 'zod';

/** An activation code as the operator issued it (`PCL1.<payload>.<signature>`). */
export const activateLicenceBody = z.object({ activationCode: z.string().trim().min(1).max(4000) }).strict();
/** How many days before expiry the reminder mail goes out (and licences show as expiring). */
export const licenceReminderBody = z.object({ reminderDays: z.number().int().min(1).max(365) }).strict();

export const LICENCE_STATES = ['valid', 'expiring', 'expired'] as const;

/** A licence the company activated, as the licence section lists it and activating it answers. */
export const licenceAnswer = z.object({
  licenceId: z.string(),
  code: z.string().meta({ description: 'The activation code shortened (its start and end), enough to recognise it' }),
  mac: z.string().nullable().meta({ description: 'The terminal’s MAC address a bound licence gives its seats to; null for a licence any terminal may use' }),
  activateTime: z.iso.datetime(),
  expireTime: z.iso.datetime(),
  state: z.enum(LICENCE_STATES).meta({ description: '`expiring`: within the reminder days of its expiry' }),
  seats: z.number().int().meta({ description: 'Devices it licenses: face terminals and intercoms alike' }),
  used: z.number().int().meta({ description: 'Devices holding one of its seats' }),
  remaining: z.number().int(),
  trial: z.boolean().meta({ description: 'The company’s free trial, which has no activation code' }),
});
export type LicenceJson = z.output<typeof licenceAnswer>;

export const TRIAL_STATES = ['available', 'active', 'ended'] as const;

/** The company's free trial: one per company, granted at registration or started once by its owner. */
export const trialAnswer = z
  .object({
    state: z.enum(TRIAL_STATES).meta({ description: '`available`: never granted, the owner may start it; `active`: in force; `ended`: expired' }),
    seats: z.number().int().meta({ description: 'Seats the trial gives' }),
    days: z.number().int().meta({ description: 'Days the trial lasts from its start' }),
    expireTime: z.iso.datetime().nullable().meta({ description: 'When the trial ends; null while it is available' }),
  })
  .meta({ description: 'The free trial: when it ends its seats end; devices already bound keep working, no new one can bind' });
export type TrialJson = z.output<typeof trialAnswer>;

const seatCounts = {
  total: z.number().int().meta({ description: 'Seats of the licences not expired' }),
  used: z.number().int().meta({ description: 'Of those, the seats bound devices hold: every face terminal and every intercom takes one' }),
  remaining: z.number().int(),
  trial: trialAnswer,
};

/** `GET /v1/licences/seats`: the seats in force, as the device screens show them. */
export const seatSummary = z.object(seatCounts);
export type SeatSummary = z.output<typeof seatSummary>;

/** `GET /v1/licences`: every licence, newest first, and the seats of those still in force. */
export const licenceList = z.object({
  items: z.array(licenceAnswer),
  nextCursor: z.null().meta({ description: 'Always null: every licence is on the one page' }),
  ...seatCounts,
  usedBy: z
    .object({ faceTerminals: z.number().int(), intercoms: z.number().int() })
    .meta({ description: 'The seats in use, by the kind of device holding them (intercoms: door stations and indoor monitors)' }),
  reminderDays: z.number().int().meta({ description: 'How many days before expiry the reminder mail goes out (and licences show as expiring)' }),
});

/** `PATCH /v1/licences/reminder`: the days saved. */
export const licenceReminderAnswer = z.object({ reminderDays: z.number().int() });
