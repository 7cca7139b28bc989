import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Entity } from 'electrodb';
import { dynamo } from '#lib/aws';
import { hashPassword, randomToken, sha256 } from '#lib/crypto';
import { accounts } from './accounts.ts';
import { SERVICE, entityConfig, epochSeconds, isConditionFailure, lazy, tenantPartition, transactUpdate } from './entity.ts';
import { MAIN_TABLE, SYSTEM_SCOPE } from './tables.ts';
import { INVITATION } from './keys/main.ts';

/**
 * Invitation links: an account made by an invitation, or whose password an administrator reset
 * by one, gets a one-time link with which its person chooses the password. Only the token's
 * SHA-256 is stored, under `_system` (the link is opened without a session). The link names the
 * password it replaces (the made-up one nobody knows): it works once, until it expires, and only
 * while that password is still the account's, so a newer invitation or a password changed
 * meanwhile makes it void.
 */
export const invitations = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'invitation', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          tokenHash: { type: 'string', required: true },
          ownerTenantId: { type: 'string', required: true },
          accountId: { type: 'string', required: true },
          /** The hash of the password the link replaces. */
          replaces: { type: 'string', required: true },
          expiresAt: { type: 'number', required: true },
          usedAt: { type: 'number' },
          ttl: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: ['tokenHash'], template: INVITATION.template, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);

export const INVITATION_DAYS = 3;
/** A token as the link carries it: 32 random bytes in base64url. */
export const INVITATION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

const keyOf = (token: string) => ({ tenantId: SYSTEM_SCOPE, tokenHash: sha256(`invitation:${token}`) });

/** A password nobody knows, for an account whose person will choose theirs through a link. */
export const unknownPassword = (): string => randomToken(24);

/**
 * Makes the link's token for an account, naming the password it has now (read consistently, just
 * after it was set); answers the token, which is stored only hashed.
 */
export async function issueInvitation(tenantId: string, accountId: string, now = Date.now()): Promise<string> {
  const account = (await accounts().get({ tenantId, accountId }).go({ consistent: true })).data;
  if (!account) throw new Error(`no account ${accountId} to invite`);
  const token = randomToken(32);
  const expiresAt = now + INVITATION_DAYS * 86_400_000;
  await invitations()
    .create({ ...keyOf(token), ownerTenantId: tenantId, accountId, replaces: account.passwordHash, expiresAt, ttl: epochSeconds(new Date(expiresAt)) + 86_400 })
    .go();
  return token;
}

export interface OpenInvitation {
  tenantId: string;
  accountId: string;
  username: string;
}

async function usable(token: string, now: number): Promise<{ open: OpenInvitation; replaces: string } | undefined> {
  const invitation = (await invitations().get(keyOf(token)).go({ consistent: true })).data;
  if (!invitation || invitation.usedAt !== undefined || invitation.expiresAt <= now) return undefined;
  const account = (await accounts().get({ tenantId: invitation.ownerTenantId, accountId: invitation.accountId }).go({ consistent: true })).data;
  if (!account || account.passwordHash !== invitation.replaces) return undefined;
  return { open: { tenantId: account.tenantId, accountId: account.accountId, username: account.username }, replaces: invitation.replaces };
}

/** The account an unused, unexpired and still current link is for; undefined otherwise. */
export async function findInvitation(token: string, now = Date.now()): Promise<OpenInvitation | undefined> {
  return (await usable(token, now))?.open;
}

/**
 * Sets the account's password through the link, in one transaction that spends the link (not
 * used before, not expired) and replaces the password it names (still the account's): of two
 * uses, parallel or not, one succeeds. The password is the person's own, so no change is asked
 * for at the next login. Answers the account, or undefined when the link is not usable (nothing
 * changes then).
 */
export async function acceptInvitation(token: string, password: string, now = Date.now()): Promise<OpenInvitation | undefined> {
  const found = await usable(token, now);
  if (!found) return undefined;
  const { open, replaces } = found;
  const passwordHash = await hashPassword(password);
  const spend = invitations()
    .patch(keyOf(token))
    .set({ usedAt: now })
    .where((attr, op) => `${op.notExists(attr.usedAt)} AND ${op.gt(attr.expiresAt, now)}`)
    .params<Record<string, unknown>>();
  const replace = accounts()
    .patch({ tenantId: open.tenantId, accountId: open.accountId })
    .set({ passwordHash, mustChangePassword: false })
    .where((attr, op) => op.eq(attr.passwordHash, replaces))
    .params<Record<string, unknown>>();
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: [transactUpdate(spend), transactUpdate(replace)] }));
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
  return open;
}
