import {
  APK_CONTENT_TYPE,
  CLIENT_PACKAGE_MAX_BYTES,
  CODE_VERSION,
  packageKeyParams,
  completedPackage,
  packagePresignBody,
  presignedPackage,
  privacyAnswer,
  privacyBody,
  systemInfo,
  type CompletedPackage,
  type PresignedPackage,
  type SystemInfo,
} from '#contract/settings';
import { twoFactorPolicy as twoFactorPolicyAnswer, twoFactorPolicyBody, type TwoFactorPolicy } from '#contract/twoFactor';
import { looksLikeZip } from '#domain/uploads';
import { findTenant } from '#data/identity';
import { tenants } from '#data/tenants';
import { allFaceTerminals } from '#data/devices';
import { announcePackage, dropPackage, findPackage, latestRelease, readPrivacy, releasePackage, savePrivacy } from '#data/settings';
import { newId } from '#lib/crypto';
import { AppError, NotFoundError, fieldError, type ValidationError } from '#lib/errors';
import type { SessionAuth } from '#lib/auth';
import { created, defineResource, ok, sessionOnlyRoute, sessionRoute } from '#lib/http';
import { inProcess, startWorker } from '#lib/jobs';
import { deleteObject, digestObject, objectSize, presignedPut } from '#lib/storage';
import { env, declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'API_BASE_URL', 'BUILD_ID', 'CAPTURES_BUCKET', 'IMPORTS_BUCKET', 'IOT_MQTT_URL', 'IOT_WS_URL', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGE_NOTICE_FUNCTION', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * System settings: what a device and an integrator need to reach the service, the versions, and
 * the client install package; privacy settings: what pass records keep and how long records and
 * files are kept (read where data is written: data/settings.ts privacySettings).
 */

const MB = 1024 * 1024;
/** A presigned upload of up to 200 MB may start within this time. */
const UPLOAD_SECONDS = 3600;
const packageObject = (packageKey: string): string => `client/${packageKey}.apk`;

function port(url: URL, fallback: number): number {
  return url.port ? Number(url.port) : fallback;
}

/** An address a browser elsewhere cannot use for this machine: a listener on every interface, or loopback. */
const MACHINE_LOCAL = /^(0\.0\.0\.0|::|::1|127(\.\d{1,3}){3}|localhost)$/i;

/** The host name (no port) of a Host header, when it is one. */
function requestHost(host: string | undefined): string | undefined {
  const name = host?.trim().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return name && /^[0-9A-Za-z.:-]{1,253}$/.test(name) ? name : undefined;
}

/**
 * The broker as devices reach it: from the URLs the stack hands to devices (IOT_MQTT_URL,
 * IOT_WS_URL). On one machine the broker listens where the console does: when that address is
 * every interface or loopback, the reader is told the host name their browser reached the console
 * by (the request's Host), which is the machine's address as they see it. On AWS it is the IoT endpoint.
 */
function mqttAddress(hostHeader: string | undefined): SystemInfo['mqtt'] {
  const tcp = new URL(env('IOT_MQTT_URL') ?? 'mqtts://localhost:8883');
  const ws = new URL(env('IOT_WS_URL') ?? `wss://${tcp.hostname}:443/mqtt`);
  const secure = (protocol: string) => protocol === 'mqtts:' || protocol === 'wss:' || protocol === 'ssl:' || protocol === 'tls:';
  const configured = tcp.hostname.replace(/^\[|\]$/g, '');
  const seen = requestHost(hostHeader);
  return {
    endpoint: MACHINE_LOCAL.test(configured) && seen ? seen : configured,
    tcpPort: port(tcp, secure(tcp.protocol) ? 8883 : 1883),
    wsPort: port(ws, secure(ws.protocol) ? 443 : 80),
    wsPath: ws.pathname || '/mqtt',
  };
}

/** The database: DynamoDB Local's address on one machine, the region's DynamoDB endpoint (HTTPS) on AWS. */
function databaseAddress(): SystemInfo['database'] {
  const local = env('DYNAMODB_ENDPOINT');
  if (local) {
    const url = new URL(local);
    return { endpoint: url.hostname.replace(/^\[|\]$/g, ''), port: port(url, url.protocol === 'https:' ? 443 : 80) };
  }
  return { endpoint: `dynamodb.${env('AWS_REGION') ?? 'us-east-1'}.amazonaws.com`, port: 443 };
}

function apiBaseUrl(headers: Record<string, string | undefined>): string {
  const configured = env('API_BASE_URL');
  if (configured) return configured.replace(/\/+$/, '');
  return `https://${headers.host ?? 'localhost'}/v1`;
}

async function twoFactorPolicy(auth: SessionAuth): Promise<TwoFactorPolicy> {
  const tenant = await findTenant(auth.tenantId);
  return { requireTwoFactor: !!tenant?.requireTwoFactor, canChange: auth.account.owner, ownEnabled: !!auth.account.totpSecret };
}

export const settings = defineResource('settings', {
  'GET /v1/settings/system': sessionRoute({
    answer: systemInfo,
    async handle({ auth, headers }) {
      const info: SystemInfo = {
        apiBaseUrl: apiBaseUrl(headers),
        mqtt: mqttAddress(headers.host),
        database: databaseAddress(),
        version: CODE_VERSION,
        buildId: env('BUILD_ID') || 'dev',
        client: await latestRelease(auth.tenantId),
      };
      return ok(info);
    },
  }),

  'POST /v1/settings/system/packages': sessionRoute({
    answer: presignedPackage,
    body: packagePresignBody,
    async handle({ auth, body }) {
      if (body.size > CLIENT_PACKAGE_MAX_BYTES) throw fieldError('size', 'upload.tooBig', { max: CLIENT_PACKAGE_MAX_BYTES / MB });
      const packageKey = `pkg${newId(20)}`;
      await announcePackage(auth.tenantId, packageKey, body.version, body.filename, body.size);
      // Signed over the exact length and type: storage refuses any other body.
      const url = await presignedPut('packages', auth.tenantId, packageObject(packageKey), APK_CONTENT_TYPE, UPLOAD_SECONDS, { contentLength: body.size });
      const answer: PresignedPackage = { packageKey, upload: { url, method: 'PUT', headers: { 'content-type': APK_CONTENT_TYPE } } };
      return created(answer);
    },
  }),

  'POST /v1/settings/system/packages/{packageKey}/complete': sessionRoute({
    answer: completedPackage,
    params: packageKeyParams,
    async handle({ auth, params }) {
      const pkg = await findPackage(auth.tenantId, params.packageKey);
      // None: never announced, expired, already completed, or a key of another tenant.
      if (!pkg || pkg.state !== 'pending') throw new NotFoundError();
      const key = packageObject(pkg.packageKey);
      const size = await objectSize('packages', auth.tenantId, key);
      // Not uploaded yet: the announcement stays, so the upload may still be made and completed.
      if (size === undefined) throw fieldError('file', 'upload.fileMissing');
      const refuse = async (error: ValidationError): Promise<never> => {
        await Promise.all([deleteObject('packages', auth.tenantId, key), dropPackage(auth.tenantId, pkg.packageKey)]);
        throw error;
      };
      // Storage takes only the signed length; checked here too, before reading, for stores that do not verify it.
      if (size > CLIENT_PACKAGE_MAX_BYTES) return refuse(fieldError('file', 'upload.tooBig', { max: CLIENT_PACKAGE_MAX_BYTES / MB }));
      if (size !== pkg.size) return refuse(fieldError('file', 'settings.sizeMismatch', { size: pkg.size }));
      const digest = await digestObject('packages', auth.tenantId, key);
      if (digest.size !== pkg.size) return refuse(fieldError('file', 'settings.sizeMismatch', { size: pkg.size }));
      if (!looksLikeZip(digest.head)) return refuse(fieldError('file', 'settings.notApk'));
      const release = await releasePackage(auth.tenantId, pkg, digest.sha256);
      if (!release) throw new NotFoundError();
      // The online terminals are told by a worker, outside this request (jobs/packageNotices.ts).
      const notified = (await allFaceTerminals(auth.tenantId)).filter((d) => d.online).length;
      await startWorker('PACKAGE_NOTICE_FUNCTION', { tenantId: auth.tenantId, packageKey: pkg.packageKey }, inProcess('PACKAGE_NOTICE_FUNCTION'), 'client package notice');
      const answer: CompletedPackage = {
        packageKey: pkg.packageKey,
        version: release.version,
        size: release.size,
        sha256: release.sha256,
        uploadTime: release.uploadTime,
        notified,
      };
      return created(answer);
    },
  }),

  'GET /v1/settings/privacy': sessionOnlyRoute({
    answer: privacyAnswer,
    async handle({ auth }) {
      return ok(await readPrivacy(auth.tenantId));
    },
  }),

  'PUT /v1/settings/privacy': sessionOnlyRoute({
    answer: privacyAnswer,
    body: privacyBody,
    async handle({ auth, body }) {
      const { version, ...wanted } = body;
      return created(await savePrivacy(auth.tenantId, wanted, version));
    },
  }),

  'GET /v1/settings/twoFactor': sessionOnlyRoute({
    answer: twoFactorPolicyAnswer,
    async handle({ auth }) {
      return ok(await twoFactorPolicy(auth));
    },
  }),

  'PUT /v1/settings/twoFactor': sessionOnlyRoute({
    answer: twoFactorPolicyAnswer,
    body: twoFactorPolicyBody,
    async handle({ auth, body }) {
      if (!auth.account.owner) throw new AppError(401, 'twoFactor.ownerOnly');
      // The owner goes first: a rule its own account does not keep would take effect at its own next login.
      if (body.requireTwoFactor && !auth.account.totpSecret) throw fieldError('requireTwoFactor', 'twoFactor.ownerFirst');
      await tenants().patch({ tenantId: auth.tenantId }).set({ requireTwoFactor: body.requireTwoFactor }).go();
      return created(await twoFactorPolicy(auth));
    },
  }),
});

export const handler = settings.handler;
