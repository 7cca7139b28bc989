import * as z from 'zod';
import { LOCALES } from './locales.ts';
import { sealed } from './sealed.ts';

export const usernameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.@-]{3,32}$/, { message: 'username.format' });

export const loginBody = z.object({ securityId: z.string().min(1).max(64), account: sealed('login', 'The username'), password: sealed('login', 'The password') });

export const resetBody = z.object({ payload: sealed('session', 'The JSON `{ "oldPassword": …, "newPassword": … }`', 4096) });
/** The decrypted payload of `PATCH /v1/systems/reset`. */
export const resetPayload = z.object({ oldPassword: z.string().min(1), newPassword: z.string().min(1) });

export const validateCodesBody = z.discriminatedUnion('purpose', [
  z.object({ purpose: z.literal('register'), email: z.email().max(254) }),
  z.object({ purpose: z.literal('retrieve'), username: usernameSchema }),
]);

export const registerBody = z.object({
  securityId: z.string().min(1).max(64),
  companyName: z.string().trim().min(1).max(100),
  username: usernameSchema,
  email: z.email().max(254),
  password: sealed('login', 'The owner’s password'),
  code: z.string().regex(/^\d{6}$/),
  agree: z.literal(true, { message: 'register.mustAgree' }),
});

export const retrieveCheckBody = z.object({ username: usernameSchema, code: z.string().regex(/^\d{6}$/) });
export const retrieveSetBody = retrieveCheckBody.extend({ securityId: z.string().min(1).max(64), newPassword: sealed('login', 'The new password') });

export const termsQuery = z.object({ locale: z.enum(LOCALES).optional() });

/** An invitation link's token: 32 random bytes in base64url (data/invitations.ts). */
const invitationToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { message: 'invitation.invalid' });
/** `GET /v1/systems/invitation?token=`: whose account the link is for. */
export const invitationQuery = z.object({ token: invitationToken });
/** `POST /v1/systems/invitation`: the password chosen through the link, encrypted with a login key. */
export const invitationBody = z.object({ securityId: z.string().min(1).max(64), token: invitationToken, password: sealed('login', 'The password chosen') });

/** `POST /v1/systems/security`: a login key, for one request. */
export const securityKeyAnswer = z.object({
  securityId: z.string().meta({ description: 'Names the key in the body it seals' }),
  publicKey: z.string().meta({ description: 'A 2048-bit RSA public key, DER (SubjectPublicKeyInfo) in base64, to seal fields marked `x-sealed` with key `login`' }),
});

/** What `GET /v1/systems/invitation` answers. */
export const invitationInfo = z.object({ username: z.string(), companyName: z.string() });
export type InvitationInfo = z.output<typeof invitationInfo>;

/** What login answers and `me` repeats (without the token). */
export const userInfo = z.object({
  token: z.string().optional().meta({ description: 'Login only: send it as `Authorization: Bearer <token>`' }),
  username: z.string(),
  nickname: z.string(),
  userCode: z.string().meta({ description: 'The company’s device binding code' }),
  companyName: z.string(),
  avatar: z.string().nullable(),
  phone: z.string().nullable(),
  email: z.string().nullable(),
  key: z.string().meta({ description: 'The session’s RSA public key, DER (SubjectPublicKeyInfo) in base64, to seal fields marked `x-sealed` with key `session`' }),
  authCodes: z.array(z.string()).meta({ description: 'The authCodes the account holds (functions/contract/menu.ts)' }),
  mustChangePassword: z.boolean().meta({ description: 'The password was set by an administrator or an invitation: the console asks for a new one first' }),
  twoFactorEnabled: z.boolean().meta({ description: 'The account has two-factor login on' }),
  mustEnrolTwoFactor: z.boolean().meta({ description: 'The company requires two-factor login and the account has none: only enrolling is open' }),
});
export type UserInfo = z.output<typeof userInfo>;

/**
 * What login answers when the account has two-factor login on: no session yet, but the challenge
 * to send with a code to `POST /v1/systems/login/twoFactor` (contract/twoFactor.ts).
 */
const loginChallengeAnswer = z.object({
  twoFactor: z.object({ challenge: z.string(), expiresAt: z.iso.datetime() }).meta({ description: 'Send `challenge` with a code to `POST /v1/systems/login/twoFactor` before `expiresAt`' }),
});
export type LoginChallengeAnswer = z.output<typeof loginChallengeAnswer>;

/** `POST /v1/systems/login`: the session, or the second step it needs first. */
export const loginAnswer = z.union([userInfo.extend({ token: z.string() }), loginChallengeAnswer]);
/** `POST /v1/systems/login/twoFactor`: the session. */
export const sessionAnswer = userInfo.extend({ token: z.string() });

/** `POST /v1/systems/register`: the new company's owner and its device binding code. */
export const registerAnswer = z.object({ username: z.string(), userCode: z.string() });
/** `GET /v1/systems/terms`. */
export const termsAnswer = z.object({ locale: z.enum(LOCALES), title: z.string(), content: z.string() });
/** `POST /v1/systems/retrieve`: the code is right (a wrong one answers 422). */
export const retrieveCheckAnswer = z.object({ valid: z.literal(true) });
/** `POST /v1/systems/invitation`: the account whose password was chosen. */
export const invitationAnswer = z.object({ username: z.string() });
