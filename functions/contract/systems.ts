import * as z from 'zod';
import { LOCALES } from './locales.ts';

/** Ciphertext fields are base64 RSA-OAEP output of the session or login key. */
const cipher = z.string().min(1).max(1024);

export const usernameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9_.@-]{3,32}$/, { message: 'username.format' });

export const loginBody = z.object({ securityId: z.string().min(1).max(64), account: cipher, password: cipher });

export const resetBody = z.object({ payload: z.string().min(1).max(4096) });
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
  password: cipher,
  code: z.string().regex(/^\d{6}$/),
  agree: z.literal(true, { message: 'register.mustAgree' }),
});

export const retrieveCheckBody = z.object({ username: usernameSchema, code: z.string().regex(/^\d{6}$/) });
export const retrieveSetBody = retrieveCheckBody.extend({ securityId: z.string().min(1).max(64), newPassword: cipher });

export const termsQuery = z.object({ locale: z.enum(LOCALES).optional() });

/** An invitation link's token: 32 random bytes in base64url (data/invitations.ts). */
const invitationToken = z.string().regex(/^[A-Za-z0-9_-]{43}$/, { message: 'invitation.invalid' });
/** `GET /v1/systems/invitation?token=`: whose account the link is for. */
export const invitationQuery = z.object({ token: invitationToken });
/** `POST /v1/systems/invitation`: the password chosen through the link, encrypted with a login key. */
export const invitationBody = z.object({ securityId: z.string().min(1).max(64), token: invitationToken, password: cipher });

/** What `GET /v1/systems/invitation` answers. */
export interface InvitationInfo {
  username: string;
  companyName: string;
}

/** What login answers and `me` repeats (without the token). */
export interface UserInfo {
  token?: string;
  username: string;
  nickname: string;
  userCode: string;
  companyName: string;
  avatar: string | null;
  phone: string | null;
  email: string | null;
  key: string;
  authCodes: string[];
  /** The password was set by an administrator or an invitation: the console asks for a new one first. */
  mustChangePassword: boolean;
  /** The account has two-factor login on (contract/twoFactor.ts). */
  twoFactorEnabled: boolean;
  /** The company requires two-factor login and the account has none: the console leads it through enrolment first. */
  mustEnrolTwoFactor: boolean;
}

/**
 * What login answers when the account has two-factor login on: no session yet, but the challenge
 * to send with a code to `POST /v1/systems/login/twoFactor` (contract/twoFactor.ts).
 */
export interface LoginChallengeAnswer {
  twoFactor: { challenge: string; expiresAt: string };
}
