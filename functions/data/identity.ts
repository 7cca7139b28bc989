import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { EntityItem } from 'electrodb';
import { LIVE_CLIENTS_PER_SESSION, parseLiveClient } from '#contract/live';
import { DUPLICATE_CLIENT_ID } from '#contract/protocol';
import { AUTH_CODES, type AuthCode } from '#contract/menu';
import { dynamo } from '#lib/aws';
import { hashPassword, newId, newUserCode, randomToken, sha256, type RsaKeyPair } from '#lib/crypto';
import { ConflictError, NotFoundError } from '#lib/errors';
import { makeToken, sessionMaxMs } from '#lib/auth';
import { disconnect } from '#lib/iot';
import { log } from '#lib/log';
import type { Locale } from '#contract/locales';
import { accounts } from './accounts.ts';
import { claims } from './claims.ts';
import { groupWrites } from './groups.ts';
import { epochSeconds, isConditionFailure, nowIso, transactPut, versionedWrite, type TransactItem } from './entity.ts';
import { addressAttempt, clearAttempts, countAttempt, refundAttempt } from './throttles.ts';
import { sessions } from './sessions.ts';
import { MAIN_TABLE, SYSTEM_SCOPE, tableName } from './tables.ts';
import { tenants } from './tenants.ts';
import { SESSION } from './keys/main.ts';

/** Accounts, sessions and the records around signing in. */

const normalizeName = (username: string): string => username.trim().toLowerCase();

export async function findAccountByUsername(username: string) {
  const claim = (
    await claims()
      .get({ tenantId: SYSTEM_SCOPE, kind: 'username', value: normalizeName(username) })
      .go()
  ).data;
  if (!claim?.accountId) return undefined;
  return (await accounts().get({ tenantId: claim.ownerTenantId, accountId: claim.accountId }).go()).data ?? undefined;
}

export async function findTenant(tenantId: string) {
  return (await tenants().get({ tenantId }).go()).data ?? undefined;
}

export interface NewTenant {
  companyName: string;
  username: string;
  email: string;
  password: string;
  nickname?: string;
  /** Names of the employee and visitor groups every new company starts with, in its owner's language. */
  defaultGroups: { employee: string; visitor: string };
  /** The owner's language. */
  locale?: Locale;
}

export interface NewAccount {
  username: string;
  password: string;
  authCodes: AuthCode[];
  email?: string;
  phone?: string;
  nickname?: string;
  remark?: string;
  owner?: boolean;
  /** The password was chosen by someone else: the user must change it before anything else. */
  mustChangePassword?: boolean;
}

/** The writes that create an account: its username claim first (a taken name cancels the transaction), then the account. */
async function accountWrites(tenantId: string, accountId: string, input: NewAccount, createdAt: string) {
  const username = input.username.trim();
  if (await findAccountByUsername(username)) throw new ConflictError('register.usernameTaken', 'username');
  return [
    transactPut(
      claims()
        .create({ tenantId: SYSTEM_SCOPE, kind: 'username', value: normalizeName(username), ownerTenantId: tenantId, accountId })
        .params(),
    ),
    transactPut(
      accounts()
        .create({
          tenantId,
          accountId,
          username,
          email: input.email,
          phone: input.phone,
          nickname: input.nickname || username,
          mustChangePassword: input.mustChangePassword ?? false,
          remark: input.remark,
          passwordHash: await hashPassword(input.password),
          authCodes: input.authCodes,
          owner: input.owner ?? false,
          createdAt,
        })
        .params(),
    ),
  ];
}

/** Runs a transaction whose first write is a username claim; a taken username answers 409, any other refusal is returned. */
async function claimingWrite(items: TransactItem[]): Promise<'written' | 'refused'> {
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
    return 'written';
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
    if (reasons.length === 0 || reasons[0]?.Code === 'ConditionalCheckFailed') throw new ConflictError('register.usernameTaken', 'username');
    return 'refused';
  }
}

/**
 * Creates a tenant and its owner account holding every authCode, with a unique device binding
 * code and a default employee and visitor group; the username and the binding code are claimed
 * in the same transaction.
 */
export async function createTenantWithOwner(input: NewTenant): Promise<{ tenantId: string; accountId: string; userCode: string }> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const tenantId = newId();
    const accountId = newId();
    const userCode = newUserCode();
    const createdAt = nowIso();
    const writes = await accountWrites(tenantId, accountId, { ...input, authCodes: [...AUTH_CODES], owner: true }, createdAt);
    writes.push(
      transactPut(claims().create({ tenantId: SYSTEM_SCOPE, kind: 'userCode', value: userCode, ownerTenantId: tenantId }).params()),
      transactPut(
        tenants()
          .create({ tenantId, companyName: input.companyName.trim(), userCode, createdAt, ...(input.locale ? { locale: input.locale } : {}) })
          .params(),
      ),
      // A new company can add people at once: Group is required for employees and visitors.
      ...groupWrites(tenantId, input.defaultGroups.employee, 'employee').writes,
      ...groupWrites(tenantId, input.defaultGroups.visitor, 'visitor').writes,
    );
    // Only the binding code can collide here: try another.
    if ((await claimingWrite(writes)) === 'written') return { tenantId, accountId, userCode };
  }
  throw new Error('could not allocate a unique device binding code');
}

/** Adds an account to an existing tenant (account management uses this; so do the tests). */
export async function createAccount(tenantId: string, input: NewAccount): Promise<string> {
  const accountId = newId();
  await claimingWrite(await accountWrites(tenantId, accountId, input, nowIso()));
  return accountId;
}

// Account management (settings: accounts)

export type Account = EntityItem<ReturnType<typeof accounts>>;

/** Every account of a tenant (a company has a handful to a few hundred). */
export async function listAccounts(tenantId: string): Promise<Account[]> {
  return (await accounts().query.primary({ tenantId }).go({ pages: 'all' })).data;
}

export async function requireAccount(tenantId: string, accountId: string): Promise<Account> {
  const account = (await accounts().get({ tenantId, accountId }).go()).data;
  if (!account) throw new NotFoundError();
  return account;
}

export interface AccountChanges {
  nickname?: string;
  email?: string | null;
  phone?: string | null;
  remark?: string | null;
  authCodes?: AuthCode[];
  disabled?: boolean;
}

/**
 * Changes an account if `version` is still current. A change of permissions or a disabling bumps
 * `authVersion`, so the account's session answers 661 at its next request.
 */
export async function updateAccount(tenantId: string, accountId: string, version: number, changes: AccountChanges): Promise<Account> {
  const key = { tenantId, accountId };
  const cleared = (['email', 'phone', 'remark'] as const).filter((name) => changes[name] === null);
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== null && value !== undefined));
  const endsSession = changes.authCodes !== undefined || changes.disabled === true;
  const result = await versionedWrite(
    () => {
      let op = accounts().patch(key).set(set);
      if (cleared.length) op = op.remove(cleared);
      return op
        .add({ version: 1, ...(endsSession ? { authVersion: 1 } : {}) })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' });
    },
    async () => !!(await accounts().get(key).go()).data,
  );
  const updated = result.data as Account;
  if (endsSession && updated.activeSession) await endSessionConnections(tenantId, updated.activeSession);
  return updated;
}

/**
 * Ends the live connections of a session that stops being served (its account was disabled,
 * deleted or had its rights changed) while the session itself stays, so that its token answers
 * 661 and the console says why.
 */
async function endSessionConnections(tenantId: string, tokenHash: string): Promise<void> {
  const session = (await sessions().get({ tenantId, tokenHash }).go()).data;
  await endLiveClients(session?.liveClients);
}

/** Deletes an account and frees its username, if `version` is still current; its session answers 661 and its live connections end. */
export async function deleteAccount(tenantId: string, account: Account, version: number): Promise<void> {
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              ...accounts().delete({ tenantId, accountId: account.accountId }).params<Record<string, unknown>>(),
              ConditionExpression: '#v = :v',
              ExpressionAttributeNames: { '#v': 'version' },
              ExpressionAttributeValues: { ':v': version },
            },
          },
          {
            Delete: claims()
              .delete({ tenantId: SYSTEM_SCOPE, kind: 'username', value: normalizeName(account.username) })
              .params<Record<string, unknown>>(),
          },
        ] as never,
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw (await accounts().get({ tenantId, accountId: account.accountId }).go()).data ? new ConflictError() : new NotFoundError();
  }
  if (account.activeSession) await endSessionConnections(tenantId, account.activeSession);
}

// Sessions

/**
 * Opens the account's one live session: the login key pair becomes the session key pair, and
 * the account now points at this token, so any older token answers 662 and loses its live
 * connections at once. With `enrolTwoFactor` (the company requires two-factor login and the
 * account has none) the session may use only the routes that enrol it (lib/auth.ts).
 */
export async function openSession(
  account: { tenantId: string; accountId: string; authVersion: number },
  pair: RsaKeyPair,
  options: { enrolTwoFactor?: boolean } = {},
): Promise<string> {
  const token = makeToken(account.tenantId, randomToken());
  const tokenHash = sha256(token);
  const now = Date.now();
  const expiresAt = now + sessionMaxMs();
  await sessions()
    .create({
      tenantId: account.tenantId,
      tokenHash,
      accountId: account.accountId,
      authVersion: account.authVersion,
      ...pair,
      createdAt: now,
      lastSeenAt: now,
      expiresAt,
      ttl: epochSeconds(new Date(expiresAt)) + 86_400,
      ...(options.enrolTwoFactor ? { enrolTwoFactor: true } : {}),
    })
    .go();
  const before = (
    await accounts().patch({ tenantId: account.tenantId, accountId: account.accountId }).set({ activeSession: tokenHash }).go({ response: 'all_old' })
  ).data;
  if (before?.activeSession && before.activeSession !== tokenHash) {
    const replaced = (await sessions().get({ tenantId: account.tenantId, tokenHash: before.activeSession }).go()).data;
    await endLiveClients(replaced?.liveClients);
  }
  return token;
}

export async function closeSession(tenantId: string, tokenHash: string, accountId: string): Promise<void> {
  const closed = (await sessions().delete({ tenantId, tokenHash }).go({ response: 'all_old' })).data;
  await accounts()
    .patch({ tenantId, accountId })
    .remove(['activeSession'])
    .where((attr, op) => op.eq(attr.activeSession, tokenHash))
    .go()
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  await endLiveClients(closed?.liveClients);
}

/**
 * Admits one live connection of a session (contract/live.ts): its client id joins the session's,
 * at most LIVE_CLIENTS_PER_SESSION of them, in one conditional write so racing tabs cannot pass
 * the cap. A client id already admitted (the broker checking again) is admitted again. False when
 * the session is gone or full.
 */
export async function admitLiveClient(tenantId: string, tokenHash: string, clientId: string): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(MAIN_TABLE),
        Key: { pk: tenantId, sk: SESSION.of(tokenHash) },
        UpdateExpression: 'ADD #clients :client SET #admitted = :now',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#clients) OR size(#clients) < :cap OR contains(#clients, :id))',
        ExpressionAttributeNames: { '#clients': 'liveClients', '#admitted': 'liveAdmittedAt' },
        ExpressionAttributeValues: { ':client': new Set([clientId]), ':cap': LIVE_CLIENTS_PER_SESSION, ':id': clientId, ':now': Date.now() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * A live connection ended (the broker's presence event at `at`, ms): its client id leaves its
 * session's, so the session counts only the connections it holds. The list must never lose a
 * connection that is still there, or ending the session would leave it open:
 * - a connection the broker closed because a newer one took its client id (a tab reconnecting,
 *   `DUPLICATE_CLIENTID`) is not a departure: that id is connected again;
 * - lifecycle events may come out of order, so a disconnect from before the session's latest
 *   admission may be of a connection since replaced under the same id, and leaves the id listed.
 * An id kept too long costs one of the session's LIVE_CLIENTS_PER_SESSION places, never access:
 * the authorizer admits by the session, and the session's end disconnects every id listed.
 * https://docs.aws.amazon.com/iot/latest/developerguide/life-cycle-events.html
 */
export async function releaseLiveClient(clientId: string, at: number, reason?: string): Promise<void> {
  if (reason === DUPLICATE_CLIENT_ID) return;
  const ids = parseLiveClient(clientId);
  if (!ids) return;
  const found = await dynamo().send(
    new QueryCommand({
      TableName: tableName(MAIN_TABLE),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': ids.tenantId, ':sk': SESSION.of(ids.sessionRef) },
      ProjectionExpression: 'pk, sk',
      Limit: 2,
    }),
  );
  await Promise.all(
    (found.Items ?? []).map((item) =>
      dynamo()
        .send(
          new UpdateCommand({
            TableName: tableName(MAIN_TABLE),
            Key: { pk: item.pk, sk: item.sk },
            UpdateExpression: 'DELETE #clients :client',
            ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#admitted) OR #admitted < :at)',
            ExpressionAttributeNames: { '#clients': 'liveClients', '#admitted': 'liveAdmittedAt' },
            ExpressionAttributeValues: { ':client': new Set([clientId]), ':at': at },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        }),
    ),
  );
}

/** Ends the live connections of a session that ended. A broker that cannot be reached does not keep anyone logged in: its authorizer refuses the session when it checks again. */
async function endLiveClients(clientIds: readonly string[] | undefined): Promise<void> {
  if (!clientIds?.length) return;
  await Promise.all(
    clientIds.map((clientId) => disconnect(clientId).catch((error: unknown) => log('warn', 'live connection not ended', { clientId, error: String(error) }))),
  );
}

/**
 * Sets a new password; with `endSessions` the live session is closed too (its token then answers
 * 403). `mustChange` marks a password someone else chose, which the user must change first.
 */
export async function setPassword(tenantId: string, accountId: string, password: string, endSessions: boolean, mustChange = false): Promise<void> {
  const passwordHash = await hashPassword(password);
  const account = (await accounts().get({ tenantId, accountId }).go()).data;
  if (!account) return;
  await accounts().patch({ tenantId, accountId }).set({ passwordHash, mustChangePassword: mustChange }).go();
  if (endSessions && account.activeSession) await closeSession(tenantId, account.activeSession, accountId);
}

// Attempt throttling: data/throttles.ts, whose functions callers also find here.
export { addressAttempt, clearAttempts, countAttempt, refundAttempt };

// Profile

export interface ProfileChanges {
  nickname?: string;
  phone?: string;
  email?: string;
  avatar?: string;
  remark?: string;
}

/** Changes an account's profile if `version` is still current; answers the updated account. */
export async function updateProfile(tenantId: string, accountId: string, version: number, changes: ProfileChanges) {
  const key = { tenantId, accountId };
  const result = await versionedWrite(
    () =>
      accounts()
        .patch(key)
        .set(changes)
        .add({ version: 1 })
        .where((attr, op) => op.eq(attr.version, version))
        .go({ response: 'all_new' }),
    async () => !!(await accounts().get(key).go()).data,
  );
  return result.data;
}
