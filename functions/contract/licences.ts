import * as z from 'zod';

/** An activation code as the operator issued it (`PCL1.<payload>.<signature>`). */
export const activateLicenceBody = z.object({ activationCode: z.string().trim().min(1).max(4000) }).strict();
/** How many days before expiry the reminder mail goes out (and licences show as expiring). */
export const licenceReminderBody = z.object({ reminderDays: z.number().int().min(1).max(365) }).strict();

export const LICENCE_STATES = ['valid', 'expiring', 'expired'] as const;
