import * as z from 'zod';
import { accountAnswer, accountCreateBody, accountKeyParams, accountListQuery, accountPage, accountPasswordBody, accountPatchBody, type AccountJson } from '#contract/accounts';
import { versionQuery } from '#contract/people';
import { AUTH_CODES, type AuthCode } from '#contract/menu';
import { passwordProblem } from '#domain/passwords';
import { closeSession, countAttempt, createAccount, deleteAccount, findTenant, listAccounts, requireAccount, setPassword, updateAccount, type Account } from '#data/identity';
import { disableTwoFactor } from '#data/twoFactor';
import { INVITATION_DAYS, issueInvitation, unknownPassword } from '#data/invitations';
import { withOwnerCodes, type SessionAuth } from '#lib/auth';
import { rsaDecrypt } from '#lib/crypto';
import { consoleLink } from '#lib/consoleLinks';
import { AppError, fieldError } from '#lib/errors';
import { created, defineResource, deleted, ok, sessionOnlyRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { sendMail } from '#lib/mail';
import type { Locale } from '#contract/locales';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'CONSOLE_URL', 'EVENTS_TABLE', 'IOT_DATA_ENDPOINT', 'MAIL_FROM', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET']);

function accountJson(account: Account): AccountJson {
  return {
    accountKey: account.accountId,
    username: account.username,
    nickname: account.nickname,
    email: account.email ?? null,
    phone: account.phone ?? null,
    remark: account.remark ?? null,
    // Only codes the product still has: a code it dropped opens nothing.
    authCodes: withOwnerCodes(account).authCodes.filter((code): code is AuthCode => (AUTH_CODES as readonly string[]).includes(code)),
    owner: account.owner,
    disabled: account.disabled,
    mustChangePassword: account.mustChangePassword,
    twoFactor: !!account.totpSecret,
    createTime: account.createdAt,
    version: account.version,
  };
}

const matches = (account: Account, keyword: string) =>
  [account.username, account.nickname, account.email ?? '', account.phone ?? '', account.remark ?? ''].some((field) =>
    field.toLowerCase().includes(keyword.toLowerCase()),
  );

/** A password typed in the console arrives encrypted with the caller's session key. */
function typedPassword(auth: SessionAuth, ciphertext: string): string {
  const password = rsaDecrypt(auth.session.privateKey, ciphertext);
  if (password === undefined) throw fieldError('password', 'auth.undecryptable');
  const problem = passwordProblem(password);
  if (problem) throw fieldError('password', problem.id, problem.params);
  return password;
}

/** Nobody grants what they do not hold: a sub-administrator cannot make an account mightier than itself. */
function checkGrant(auth: SessionAuth, codes: AuthCode[]): void {
  const own = new Set(auth.account.authCodes);
  if (codes.some((code) => !own.has(code))) throw fieldError('authCodes', 'accounts.grantBeyondOwn');
}

/**
 * Only the owner manages the owner, and nobody manages an account holding a permission they lack
 * (resetting its password would take it over).
 */
function checkReach(auth: SessionAuth, target: Account): void {
  if (target.accountId === auth.accountId) return;
  const own = new Set(auth.account.authCodes);
  if (target.owner || target.authCodes.some((code) => !own.has(code as AuthCode))) throw new AppError(401, 'accounts.beyondReach');
}

/** Counts an invitation against the company's hourly limit, before anything is changed. */
const countInvitation = (tenantId: string): Promise<void> => countAttempt('invitations', tenantId, 'accounts.invitationLimit', tenantId);

/**
 * Mails a one-time link with which the account's person chooses a password (data/invitations.ts),
 * for a new account or a reset one. The link carries the token; the mail record keeps it masked.
 */
async function mailInvitation(locale: Locale, account: Account, reset: boolean): Promise<void> {
  const token = await issueInvitation(account.tenantId, account.accountId);
  const tenant = await findTenant(account.tenantId);
  const params = { username: account.username, company: tenant?.companyName ?? '', link: consoleLink('/invitation', { token }), days: INVITATION_DAYS };
  const sent = await sendMail(account.tenantId, {
    to: account.email!,
    kind: 'invitation',
    about: account.nickname || account.username,
    subject: translate(locale, reset ? 'mail.passwordResetSubject' : 'mail.inviteSubject'),
    text: translate(locale, reset ? 'mail.passwordResetBody' : 'mail.inviteBody', params),
    secrets: [token],
  });
  if (!sent) throw new AppError(503, 'mail.notSent');
}

export const accounts = defineResource('accounts', {
  'GET /v1/accounts': sessionOnlyRoute({
    answer: accountPage,
    query: accountListQuery,
    async handle({ auth, query }) {
      const all = (await listAccounts(auth.tenantId)).filter((a) => !query.keyword || matches(a, query.keyword));
      // The owner first, then the newest.
      all.sort((a, b) => Number(b.owner) - Number(a.owner) || b.createdAt.localeCompare(a.createdAt) || a.accountId.localeCompare(b.accountId));
      const start = query.cursor ? all.findIndex((a) => a.accountId === query.cursor) + 1 : 0;
      const page = start > 0 || !query.cursor ? all.slice(start, start + query.pageSize) : [];
      const more = page.length > 0 && start + query.pageSize < all.length;
      return ok({ items: page.map(accountJson), nextCursor: more ? page.at(-1)!.accountId : null, total: all.length });
    },
  }),
  'POST /v1/accounts': sessionOnlyRoute({
    answer: accountAnswer,
    body: accountCreateBody,
    async handle({ auth, body, locale }) {
      checkGrant(auth, body.authCodes);
      // An invited person chooses the password through the link; until then it is one nobody knows.
      const password = body.password ? typedPassword(auth, body.password) : unknownPassword();
      if (body.invite) await countInvitation(auth.tenantId);
      const accountId = await createAccount(auth.tenantId, {
        username: body.username,
        password,
        authCodes: body.authCodes,
        ...(body.nickname ? { nickname: body.nickname } : {}),
        ...(body.email ? { email: body.email } : {}),
        ...(body.phone ? { phone: body.phone } : {}),
        ...(body.remark ? { remark: body.remark } : {}),
        mustChangePassword: !body.invite,
      });
      const account = await requireAccount(auth.tenantId, accountId);
      if (body.invite) {
        try {
          await mailInvitation(locale, account, false);
        } catch (error) {
          // Nobody can use an account whose invitation never left: it is taken back, and the answer says not done.
          await deleteAccount(auth.tenantId, account, account.version);
          throw error;
        }
      }
      return created(accountJson(account));
    },
  }),
  'GET /v1/accounts/{accountKey}': sessionOnlyRoute({
    answer: accountAnswer,
    params: accountKeyParams,
    async handle({ auth, params }) {
      return ok(accountJson(await requireAccount(auth.tenantId, params.accountKey)));
    },
  }),
  'PATCH /v1/accounts/{accountKey}': sessionOnlyRoute({
    answer: accountAnswer,
    params: accountKeyParams,
    body: accountPatchBody,
    async handle({ auth, params, body }) {
      const target = await requireAccount(auth.tenantId, params.accountKey);
      checkReach(auth, target);
      const self = target.accountId === auth.accountId;
      if (body.authCodes) {
        // Nobody raises their own permissions: the caller's own codes are the ceiling, also for itself.
        checkGrant(auth, body.authCodes);
        if (target.owner && !body.authCodes.includes('settings:account')) throw fieldError('authCodes', 'accounts.ownerKeepsAccounts');
      }
      if (body.disabled === true && target.owner) throw fieldError('disabled', 'accounts.ownerProtected');
      if (body.disabled === true && self) throw fieldError('disabled', 'accounts.notYourself');
      const { version, ...changes } = body;
      // The rule of creation: a nickname left empty is the username.
      if (changes.nickname === '') changes.nickname = target.username;
      const sameCodes = changes.authCodes && [...changes.authCodes].sort().join() === [...target.authCodes].sort().join();
      if (sameCodes) delete changes.authCodes;
      if (changes.disabled === target.disabled) delete changes.disabled;
      return created(accountJson(await updateAccount(auth.tenantId, target.accountId, version, changes)));
    },
  }),
  'DELETE /v1/accounts/{accountKey}': sessionOnlyRoute({
    answer: z.null(),
    params: accountKeyParams,
    query: versionQuery,
    async handle({ auth, params, query }) {
      const target = await requireAccount(auth.tenantId, params.accountKey);
      if (target.owner) throw new AppError(409, 'accounts.ownerProtected');
      if (target.accountId === auth.accountId) throw new AppError(409, 'accounts.notYourself');
      checkReach(auth, target);
      await deleteAccount(auth.tenantId, target, query.version);
      return deleted();
    },
  }),
  'POST /v1/accounts/{accountKey}/password': sessionOnlyRoute({
    answer: accountAnswer,
    params: accountKeyParams,
    body: accountPasswordBody,
    async handle({ auth, params, body, locale }) {
      const target = await requireAccount(auth.tenantId, params.accountKey);
      if (target.accountId === auth.accountId) throw new AppError(409, 'accounts.notYourself');
      checkReach(auth, target);
      if (body.invite && !target.email) throw fieldError('invite', 'accounts.inviteNeedsEmail');
      if (body.password) {
        // The account's session ends; its next login must choose a password of its own.
        await setPassword(auth.tenantId, target.accountId, typedPassword(auth, body.password), true, true);
        return created(accountJson(await requireAccount(auth.tenantId, target.accountId)));
      }
      // By invitation: the old password stops working and the session ends; the person chooses a new one through the link.
      await countInvitation(auth.tenantId);
      await setPassword(auth.tenantId, target.accountId, unknownPassword(), true, false);
      const account = await requireAccount(auth.tenantId, target.accountId);
      await mailInvitation(locale, account, true);
      return created(accountJson(account));
    },
  }),
  'DELETE /v1/accounts/{accountKey}/twoFactor': sessionOnlyRoute({
    answer: z.null(),
    params: accountKeyParams,
    async handle({ auth, params }) {
      const target = await requireAccount(auth.tenantId, params.accountKey);
      // One's own is turned off with one's password and a code (POST /v1/systems/twoFactor/disable).
      if (target.accountId === auth.accountId) throw new AppError(409, 'accounts.notYourself');
      checkReach(auth, target);
      await disableTwoFactor(auth.tenantId, target.accountId);
      // Whoever holds the session (and perhaps the phone) is out; the account logs in with its password alone,
      // or enrols again at once where the company requires two-factor login.
      if (target.activeSession) await closeSession(auth.tenantId, target.activeSession, target.accountId);
      return deleted();
    },
  }),
});

export const handler = accounts.handler;
