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
  seats: z.number().int().meta({ description: 'Terminals it licenses' }),
  used: z.number().int().meta({ description: 'Terminals holding one of its seats' }),
  remaining: z.number().int(),
});
export type LicenceJson = z.output<typeof licenceAnswer>;

/** `GET /v1/licences`: every licence, newest first, and the seats of those still in force. */
export const licenceList = z.object({
  items: z.array(licenceAnswer),
  nextCursor: z.null().meta({ description: 'Always null: every licence is on the one page' }),
  total: z.number().int().meta({ description: 'Seats of the licences not expired' }),
  used: z.number().int().meta({ description: 'Of those, the seats terminals hold' }),
  remaining: z.number().int(),
  reminderDays: z.number().int().meta({ description: 'How many days before expiry the reminder mail goes out (and licences show as expiring)' }),
});

/** `PATCH /v1/licences/reminder`: the days saved. */
export const licenceReminderAnswer = z.object({ reminderDays: z.number().int() });
