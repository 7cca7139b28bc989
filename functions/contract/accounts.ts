import * as z from 'zod';
import { sealed } from './sealed.ts';
import { AUTH_CODES } from './menu.ts';
import { usernameSchema } from './systems.ts';

const accountKey = z.string().regex(/^[0-9a-z]{8,32}$/, { message: 'error.itemNotFound' });
/** A password typed in the console, RSA-OAEP encrypted with the caller's session key. */
const cipher = sealed('session', 'The password the administrator types');
const authCodes = z.array(z.enum(AUTH_CODES)).max(AUTH_CODES.length);
const optionalText = (max: number) => z.string().trim().max(max).optional();
/** The name the console shows for the account: optional on create and on change alike; left empty, it is the username. */
const nickname = optionalText(64).meta({ description: 'The name shown for the account; empty or left out on create, it is the username' });

export const accountKeyParams = z.object({ accountKey });
export const accountListQuery = z.object({
  pageSize: z.coerce.number().int().min(1).max(200).default(20),
  cursor: accountKey.optional(),
  keyword: z.string().trim().max(64).optional(),
});

/**
 * A new account: an initial password (which the user must change at the first login) or an
 * invitation mailed to `email` with a password made up for the purpose.
 */
export const accountCreateBody = z
  .object({
    username: usernameSchema,
    nickname,
    email: z.email().max(254).optional(),
    phone: z
      .string()
      .trim()
      .regex(/^[0-9 +()-]{3,32}$/, { message: 'people.phoneFormat' })
      .optional(),
    remark: optionalText(500),
    authCodes,
    password: cipher.optional(),
    invite: z.boolean().optional(),
  })
  .strict()
  .refine((b) => !!b.password !== !!b.invite, { message: 'accounts.passwordOrInvite', path: ['password'] })
  .refine((b) => !b.invite || !!b.email, { message: 'accounts.inviteNeedsEmail', path: ['email'] });

export const accountPatchBody = z
  .object({
    nickname: nickname.meta({ description: 'The name shown for the account; empty, it becomes the username again' }),
    email: z.union([z.email().max(254), z.null()]).optional(),
    phone: z.union([z.string().trim().regex(/^[0-9 +()-]{3,32}$/, { message: 'people.phoneFormat' }), z.null()]).optional(),
    remark: z.union([z.string().trim().max(500), z.null()]).optional(),
    authCodes: authCodes.optional(),
    disabled: z.boolean().optional(),
    version: z.number().int().min(1),
  })
  .strict();

/** A new password typed by the administrator (encrypted with the session key), or an invitation mail. */
export const accountPasswordBody = z
  .object({ password: cipher.optional(), invite: z.boolean().optional() })
  .strict()
  .refine((b) => !!b.password !== !!b.invite, { message: 'accounts.passwordOrInvite', path: ['password'] });

/** An account as the accounts section shows it (`GET`, and what creating, changing and resetting it answer). */
export const accountAnswer = z.object({
  accountKey: z.string(),
  username: z.string(),
  nickname: z.string(),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  remark: z.string().nullable(),
  authCodes: z.array(z.enum(AUTH_CODES)).meta({ description: 'The authCodes the account holds (functions/contract/menu.ts); the owner holds every one' }),
  owner: z.boolean().meta({ description: 'The company’s owner: only the owner manages it, and it cannot be disabled or deleted' }),
  disabled: z.boolean(),
  mustChangePassword: z.boolean().meta({ description: 'The password was set by an administrator or an invitation: the next login must choose a new one' }),
  twoFactor: z.boolean().meta({ description: 'The account has two-factor login on' }),
  createTime: z.iso.datetime(),
  version: z.number().int().meta({ description: 'Send it back with a change or a deletion: a stale one answers 409' }),
});
export type AccountJson = z.output<typeof accountAnswer>;

/** `GET /v1/accounts`: a page of accounts, the owner first, then the newest. */
export const accountPage = z.object({
  items: z.array(accountAnswer),
  nextCursor: z.string().nullable().meta({ description: 'Send it as `cursor` for the next page; null on the last page' }),
  total: z.number().int().meta({ description: 'Accounts matching the keyword, on every page' }),
});
