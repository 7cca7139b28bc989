import * as z from 'zod';
import {
  invitationBody,
  invitationQuery,
  loginBody,
  registerBody,
  resetBody,
  resetPayload,
  retrieveCheckBody,
  retrieveSetBody,
  termsQuery,
  validateCodesBody,
  invitationAnswer,
  invitationInfo,
  loginAnswer,
  registerAnswer,
  retrieveCheckAnswer,
  securityKeyAnswer,
  sessionAnswer,
  termsAnswer,
  userInfo as userInfoAnswer,
  type InvitationInfo,
} from '#contract/systems';
import {
  TOTP_ISSUER,
  isTotpCode,
  recoveryCodes as recoveryCodesAnswer,
  twoFactorConfirmBody,
  twoFactorEnrolment,
  twoFactorLoginBody,
  twoFactorState,
  type RecoveryCodes,
  type TwoFactorEnrolment,
  type TwoFactorState,
} from '#contract/twoFactor';
import { LIVE_TOPIC_CODES, liveConnection, liveConnectionAnswer, liveTopics, type LiveTopic } from '#contract/live';
import type { AuthCode } from '#contract/menu';
import { menuAnswer } from '#contract/menuAnswer';
import { permittedMenu } from '#domain/menu';
import { passwordProblem } from '#domain/passwords';
import { TRIAL_DAYS, TRIAL_SEATS } from '#domain/licence';
import {
  addressAttempt,
  clearAttempts,
  closeSession,
  countAttempt,
  createTenantWithOwner,
  findAccountByUsername,
  findTenant,
  setPassword,
} from '#data/identity';
import { grantTrial } from '#data/licences';
import { log } from '#lib/log';
import { storeSecurityKey } from '#data/securityKeys';
import { checkCode, issueCode, spendCode } from '#data/verificationCodes';
import { acceptInvitation, findInvitation } from '#data/invitations';

import { disableTwoFactor, enableTwoFactor, openTotpSecret, replaceRecoveryCodes, startEnrolment, useSecondFactor } from '#data/twoFactor';

import { holdsAny, mustEnrolTwoFactor, type SessionAuth } from '#lib/auth';
import { nextRsaKeyPair, rsaDecrypt, verifyPassword } from '#lib/crypto';
import { ConflictError, NotFoundError, ValidationError, fieldError } from '#lib/errors';
import { matchingStep, newRecoveryCodes, newTotpSecret, recoveryCodeHash } from '#lib/totp';

import { created, defineResource, deleted, ok, publicRoute, sessionOnlyRoute } from '#lib/http';
import { translate } from '#lib/i18n';
import { declareEnvironment, env } from '#lib/env';
import { decrypt, loginKey, passwordLogin, secondFactorLogin, userInfo } from '#flows/login';
import { codeMail, mailRegisterCode } from '#flows/codeMails';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment([
  'AUDIT_QUEUE_URL',
  'EVENTS_TABLE',
  'IOT_AUTHORIZER_NAME',
  'IOT_DATA_ENDPOINT',
  'IOT_WS_URL',
  'MAIL_FROM',
  'MAIN_TABLE',
  'ORIGIN_VERIFY_SECRET',
  'SETTINGS_KMS_KEY_ID',
]);

/** The account's password, typed in the console and encrypted with the session key, checked as one counted attempt of the account. */
async function checkOwnPassword(auth: SessionAuth, ciphertext: string): Promise<void> {
  const password = rsaDecrypt(auth.session.privateKey, ciphertext);
  if (password === undefined) throw fieldError('password', 'auth.undecryptable');
  await countAttempt('account', auth.account.username.toLowerCase());
  if (!(await verifyPassword(password, auth.account.passwordHash))) throw fieldError('password', 'twoFactor.wrongPassword');
}

/** The password and a current code (or a recovery code) of an account with two-factor login on; both right clear the account's count. */
async function checkBothFactors(auth: SessionAuth, body: { password: string; code: string }): Promise<void> {
  if (!auth.account.totpSecret) throw new ConflictError('twoFactor.notOn');
  await checkOwnPassword(auth, body.password);
  if (!(await useSecondFactor(auth.account, body.code))) throw fieldError('code', 'twoFactor.wrongCode');
  await clearAttempts('account', auth.account.username.toLowerCase());
}

/** Ten new recovery codes and their hashes. */
function recoveryCodes(accountId: string): { codes: string[]; hashes: string[] } {
  const codes = newRecoveryCodes();
  return { codes, hashes: codes.map((code) => recoveryCodeHash(accountId, code)) };
}

function checkPassword(field: string, password: string): void {
  const problem = passwordProblem(password);
  if (problem) throw fieldError(field, problem.id, problem.params);
}

/** Runs `work` and answers no sooner than `ms`, so timing does not tell whether an account exists. */
async function inConstantTime<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } finally {
    const left = ms - (Date.now() - started);
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
  }
}

export const systems = defineResource('systems', {
  'POST /v1/systems/security': publicRoute({
    answer: securityKeyAnswer,
    async handle({ sourceIp }) {
      await countAttempt('keys', sourceIp);
      const pair = await nextRsaKeyPair();
      const securityId = await storeSecurityKey(pair);
      return ok({ securityId, publicKey: pair.publicKey });
    },
  }),

  'POST /v1/systems/login': publicRoute({
    answer: loginAnswer,
    body: loginBody,
    async handle({ body, sourceIp, headers, requestId }) {
      return ok(await passwordLogin(body, { sourceIp, userAgent: headers['user-agent'], requestId }));
    },
  }),

  'POST /v1/systems/login/twoFactor': publicRoute({
    answer: sessionAnswer,
    body: twoFactorLoginBody,
    async handle({ body, sourceIp, headers, requestId }) {
      return ok(await secondFactorLogin(body, { sourceIp, userAgent: headers['user-agent'], requestId }));
    },
  }),

  'POST /v1/systems/logout': sessionOnlyRoute({
    answer: z.null(),
    async handle({ auth }) {
      await closeSession(auth.tenantId, auth.session.tokenHash, auth.accountId);
      return deleted();
    },
  }),

  'GET /v1/systems/me': sessionOnlyRoute({
    answer: userInfoAnswer,
    async handle({ auth }) {
      return ok(await userInfo(auth.account, auth.session.publicKey, { mustEnrolTwoFactor: mustEnrolTwoFactor(auth.session, auth.account) }));
    },
  }),

  'GET /v1/systems/routes': sessionOnlyRoute({
    answer: menuAnswer,
    async handle({ auth }) {
      return ok(permittedMenu(new Set(auth.account.authCodes as AuthCode[])));
    },
  }),

  'GET /v1/systems/live': sessionOnlyRoute({
    answer: liveConnectionAnswer,
    async handle({ auth }) {
      const url = env('IOT_WS_URL');
      if (!url) throw new Error('IOT_WS_URL is not set');
      const all = liveTopics(auth.tenantId);
      const topics = Object.fromEntries(
        (Object.keys(all) as LiveTopic[]).filter((t) => holdsAny(auth.account.authCodes, LIVE_TOPIC_CODES[t])).map((t) => [t, all[t]]),
      );
      // On AWS the authorizer is named in the MQTT username only (contract/live.ts liveConnection).
      return ok(liveConnection({ wsUrl: url, authorizerName: env('IOT_AUTHORIZER_NAME'), tenantId: auth.tenantId, tokenHash: auth.session.tokenHash, topics }));
    },
  }),

  'PATCH /v1/systems/reset': sessionOnlyRoute({
    answer: z.null(),
    body: resetBody,
    async handle({ body, auth }) {
      const plain = rsaDecrypt(auth.session.privateKey, body.payload);
      if (plain === undefined) throw fieldError('payload', 'auth.undecryptable');
      let json: unknown;
      try {
        json = JSON.parse(plain);
      } catch {
        throw fieldError('payload', 'error.invalidJson');
      }
      const parsed = resetPayload.safeParse(json);
      if (!parsed.success) throw new ValidationError(parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: { text: i.message } })));
      const { oldPassword, newPassword } = parsed.data;
      const name = auth.account.username.toLowerCase();
      await countAttempt('account', name);
      if (!(await verifyPassword(oldPassword, auth.account.passwordHash))) throw fieldError('oldPassword', 'password.wrongOriginal');
      await clearAttempts('account', name);
      checkPassword('newPassword', newPassword);
      if (newPassword === oldPassword) throw fieldError('newPassword', 'password.sameAsOriginal');
      // The account has one live session (this one), so every other session has already ended.
      await setPassword(auth.tenantId, auth.accountId, newPassword, false);
      return created();
    },
  }),

  'GET /v1/systems/twoFactor': sessionOnlyRoute({
    answer: twoFactorState,
    async handle({ auth }) {
      const tenant = await findTenant(auth.tenantId);
      const state: TwoFactorState = {
        enabled: !!auth.account.totpSecret,
        enabledAt: auth.account.totpSecret ? (auth.account.twoFactorAt ?? null) : null,
        recoveryCodesLeft: auth.account.totpSecret ? (auth.account.recoveryCodes?.length ?? 0) : 0,
        required: !!tenant?.requireTwoFactor,
      };
      return ok(state);
    },
  }),

  'POST /v1/systems/twoFactor/enrolment': sessionOnlyRoute({
    answer: twoFactorEnrolment,
    async handle({ auth }) {
      if (auth.account.totpSecret) throw new ConflictError('twoFactor.alreadyOn');
      const { secret, uri } = await newTotpSecret(auth.account.username);
      const started = await startEnrolment(auth.tenantId, auth.accountId, secret);
      if (!started) throw new ConflictError('twoFactor.alreadyOn');
      const answer: TwoFactorEnrolment = {
        uri,
        secret,
        issuer: TOTP_ISSUER,
        account: auth.account.username,
        expiresAt: new Date(started.expiresAt).toISOString(),
      };
      return created(answer);
    },
  }),

  'POST /v1/systems/twoFactor': sessionOnlyRoute({
    answer: recoveryCodesAnswer,
    body: twoFactorConfirmBody,
    async handle({ auth, body }) {
      if (auth.account.totpSecret) throw new ConflictError('twoFactor.alreadyOn');
      await checkOwnPassword(auth, body.password);
      const pending = auth.account.totpPending;
      if (!pending || (auth.account.totpPendingUntil ?? 0) < Date.now()) throw fieldError('code', 'twoFactor.enrolmentExpired');
      const step = isTotpCode(body.code) ? await matchingStep(await openTotpSecret(auth.tenantId, pending), body.code) : undefined;
      if (step === undefined) throw fieldError('code', 'twoFactor.wrongCode');
      const { codes, hashes } = recoveryCodes(auth.accountId);
      // A parallel confirmation, or a new secret asked for meanwhile, makes this one stale.
      if (!(await enableTwoFactor(auth.tenantId, auth.accountId, pending, step, hashes))) throw fieldError('code', 'twoFactor.enrolmentExpired');
      await clearAttempts('account', auth.account.username.toLowerCase());
      const answer: RecoveryCodes = { recoveryCodes: codes };
      return created(answer);
    },
  }),

  'POST /v1/systems/twoFactor/recoveryCodes': sessionOnlyRoute({
    answer: recoveryCodesAnswer,
    body: twoFactorConfirmBody,
    async handle({ auth, body }) {
      await checkBothFactors(auth, body);
      const { codes, hashes } = recoveryCodes(auth.accountId);
      if (!(await replaceRecoveryCodes(auth.tenantId, auth.accountId, auth.account.totpSecret!, hashes))) throw new ConflictError('twoFactor.notOn');
      const answer: RecoveryCodes = { recoveryCodes: codes };
      return created(answer);
    },
  }),

  'POST /v1/systems/twoFactor/disable': sessionOnlyRoute({
    answer: z.null(),
    body: twoFactorConfirmBody,
    async handle({ auth, body }) {
      // While the company requires it, nobody turns it off for themselves.
      if ((await findTenant(auth.tenantId))?.requireTwoFactor) throw new ConflictError('twoFactor.required');
      await checkBothFactors(auth, body);
      await disableTwoFactor(auth.tenantId, auth.accountId);
      return created();
    },
  }),

  'POST /v1/systems/validateCodes': publicRoute({
    answer: z.null(),
    body: validateCodesBody,
    async handle({ body, locale, sourceIp }) {
      await countAttempt('codeMails', sourceIp);
      if (body.purpose === 'register') {
        const code = await issueCode('register', body.email);
        await mailRegisterCode(body.email, code, locale);
        return ok(null);
      }
      return inConstantTime(1500, async () => {
        // A code is made for unknown names too, so the resend wait, the daily cap and the answer are the same.
        const code = await issueCode('retrieve', body.username);
        const account = await findAccountByUsername(body.username);
        // A mail that cannot be sent is answered as any other (and its code kept, so the resend wait holds
        // as for anyone): telling would say the name exists. The company sees the failure in its mail records.
        if (account?.email) await codeMail(account.tenantId, account.email, code, locale);
        return ok(null);
      });
    },
  }),

  'POST /v1/systems/register': publicRoute({
    answer: registerAnswer,
    body: registerBody,
    async handle({ body, sourceIp, locale }) {
      const pair = await loginKey(body.securityId);
      const password = decrypt(pair, 'password', body.password);
      checkPassword('password', password);
      // The code first: only someone holding a valid code learns whether a username is taken.
      await addressAttempt(sourceIp, () => checkCode('register', body.email, body.code, false));
      if (await findAccountByUsername(body.username)) throw new ConflictError('register.usernameTaken', 'username');
      await spendCode('register', body.email);
      const tenant = await createTenantWithOwner({
        companyName: body.companyName,
        username: body.username,
        email: body.email,
        password,
        defaultGroups: { employee: translate(locale, 'groups.defaultEmployees'), visitor: translate(locale, 'groups.defaultVisitors') },
        locale,
      });
      // The new company's free trial (domain/licence.ts), granted here once. Should this write
      // fail, the company exists without it and its owner starts it under Settings > Licences.
      await grantTrial(tenant.tenantId, Date.now()).catch((error: unknown) =>
        log('error', 'the new company’s free trial was not granted', { tenantId: tenant.tenantId, error: String(error) }),
      );
      return created({ username: body.username, userCode: tenant.userCode });
    },
  }),

  'GET /v1/systems/terms': publicRoute({
    answer: termsAnswer,
    query: termsQuery,
    async handle({ query, locale }) {
      const chosen = query.locale ?? locale;
      return ok({
        locale: chosen,
        title: translate(chosen, 'terms.title'),
        content: translate(chosen, 'terms.content', { trialSeats: TRIAL_SEATS, trialDays: TRIAL_DAYS }),
      });
    },
  }),

  'POST /v1/systems/retrieve': publicRoute({
    answer: retrieveCheckAnswer,
    body: retrieveCheckBody,
    async handle({ body, sourceIp }) {
      await inConstantTime(300, () => addressAttempt(sourceIp, () => checkCode('retrieve', body.username, body.code, false)));
      return ok({ valid: true });
    },
  }),

  'PATCH /v1/systems/retrieve': publicRoute({
    answer: z.null(),
    body: retrieveSetBody,
    async handle({ body, sourceIp }) {
      const pair = await loginKey(body.securityId);
      const newPassword = decrypt(pair, 'newPassword', body.newPassword);
      checkPassword('newPassword', newPassword);
      await addressAttempt(sourceIp, () => checkCode('retrieve', body.username, body.code, true));
      const account = await findAccountByUsername(body.username);
      if (!account) throw fieldError('code', 'code.invalid');
      await setPassword(account.tenantId, account.accountId, newPassword, true);
      return created();
    },
  }),

  'GET /v1/systems/invitation': publicRoute({
    answer: invitationInfo,
    query: invitationQuery,
    async handle({ query, sourceIp }) {
      // A link that is not (or no longer) usable counts as a wrong guess of the caller's address.
      const open = await addressAttempt(sourceIp, async () => {
        const found = await findInvitation(query.token);
        if (!found) throw new NotFoundError('invitation.invalid');
        return found;
      });
      const tenant = await findTenant(open.tenantId);
      const info: InvitationInfo = { username: open.username, companyName: tenant?.companyName ?? '' };
      return ok(info);
    },
  }),

  'POST /v1/systems/invitation': publicRoute({
    answer: invitationAnswer,
    body: invitationBody,
    async handle({ body, sourceIp }) {
      const pair = await loginKey(body.securityId);
      const password = decrypt(pair, 'password', body.password);
      checkPassword('password', password);
      const account = await addressAttempt(sourceIp, async () => {
        const done = await acceptInvitation(body.token, password);
        if (!done) throw new NotFoundError('invitation.invalid');
        return done;
      });
      return created({ username: account.username });
    },
  }),

  'GET /v1/openapi.json': publicRoute({
    async handle() {
      return {
        raw: {
          statusCode: 200,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=300' },
          body: await openApiText(),
        },
      };
    },
  }),
});

/**
 * The API as OpenAPI 3.1: docs/openapi.json as `npm run openapi` wrote it, imported on first use
 * so that it goes into a chunk of its own and the functions' cold starts do not load it.
 */
let openApi: Promise<string> | undefined;
const openApiText = (): Promise<string> =>
  (openApi ??= import('../../docs/openapi.json', { with: { type: 'json' } }).then((mod) => JSON.stringify(mod.default)));

export const handler = systems.handler;
