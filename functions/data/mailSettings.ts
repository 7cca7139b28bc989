import { Entity, type EntityItem } from 'electrodb';
import { SMTP_PORTS, type EmailSettings, type EmailSettingsBody, type TlsMode } from '#contract/mail';
import { HostRefused, pinHost, privateHostsAllowed, type PinnedHost, type Resolver } from '#lib/addresses';
import { ValidationError, type FieldIssue } from '#lib/errors';
import { openSecret, sealSecret } from '#lib/secretBox';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, nowIso, tenantPartition, versionedWrite } from './entity.ts';
import { EMAIL_SETTINGS_SK } from './keys/main.ts';

/** A company's email settings: one item; the SMTP password only sealed (lib/secretBox). */
export const mailSettings = lazy(
  () =>
    new Entity(
      {
        model: { entity: 'mailSettings', version: '1', service: SERVICE },
        attributes: {
          tenantId: { type: 'string', required: true },
          senderAddress: { type: 'string' },
          senderName: { type: 'string' },
          host: { type: 'string' },
          port: { type: 'number' },
          tlsMode: { type: ['none', 'starttls', 'tls'] as const, required: true },
          username: { type: 'string' },
          passwordSealed: { type: 'string' },
          recipients: { type: 'list', items: { type: 'string' }, required: true },
          feverAlert: { type: 'boolean', required: true },
          blacklistAlert: { type: 'boolean' },
          questionnaireAlert: { type: 'boolean' },
          attendanceSummary: { type: 'boolean', required: true },
          attendanceSummaryTime: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: EMAIL_SETTINGS_SK, casing: 'none' } },
        },
      },
      entityConfig(MAIN_TABLE),
    ),
);
type MailSettingsItem = EntityItem<ReturnType<typeof mailSettings>>;

const PASSWORD = (tenantId: string) => ({ tenantId, purpose: 'smtp-password' });

function toJson(item: MailSettingsItem | null | undefined): EmailSettings {
  return {
    senderAddress: item?.senderAddress ?? null,
    senderName: item?.senderName ?? null,
    host: item?.host ?? null,
    port: item?.port ?? null,
    tlsMode: item?.tlsMode ?? 'starttls',
    username: item?.username ?? null,
    passwordSet: !!item?.passwordSealed,
    recipients: item?.recipients ?? [],
    feverAlert: item?.feverAlert ?? false,
    blacklistAlert: item?.blacklistAlert ?? false,
    questionnaireAlert: item?.questionnaireAlert ?? false,
    attendanceSummary: item?.attendanceSummary ?? false,
    attendanceSummaryTime: item?.attendanceSummaryTime ?? '18:00',
    version: item?.version ?? 0,
    updateTime: item?.updatedAt ?? null,
  };
}

const readItem = async (tenantId: string) => (await mailSettings().get({ tenantId }).go()).data;

export async function readEmailSettings(tenantId: string): Promise<EmailSettings> {
  return toJson(await readItem(tenantId));
}

/** With the local switch (lib/addresses.ts privateHostsAllowed) a company's SMTP server may also be on any port. */
export const privateSmtpAllowed = privateHostsAllowed;

export const smtpPortAllowed = (port: number): boolean => privateSmtpAllowed() || (SMTP_PORTS as readonly number[]).includes(port);

/** The address a company's SMTP server is reached at now; throws HostRefused when it is not one the service connects to. */
export function pinSmtpHost(host: string, resolver?: Resolver): Promise<PinnedHost> {
  return pinHost(host, { allowPrivate: privateSmtpAllowed(), ...(resolver ? { resolver } : {}) });
}

/** Why a host cannot be saved, as a field issue naming `host`. */
function hostIssue(error: HostRefused): FieldIssue {
  if (error.reason === 'notPublic') return { path: 'host', message: 'mail.hostNotPublic', params: { host: error.host, address: error.address ?? '' } };
  return { path: 'host', message: error.reason === 'notFound' ? 'mail.hostNotFound' : 'mail.hostLookupFailed', params: { host: error.host } };
}

const sameText = (a: string | null | undefined, b: string | null | undefined): boolean => (a ?? '').toLowerCase() === (b ?? '').toLowerCase();

export interface SaveOptions {
  /** How the host is looked up (tests stand in for DNS). */
  resolver?: Resolver;
}

/**
 * Saves the whole set when `version` is the one last read (0: never saved); a stale version
 * changes nothing and answers 409. A body without `password` keeps the stored one only while the
 * server (host, port, TLS mode, username) stays the same: a password belongs to its server. A
 * password is never sent in the clear (TLS mode `none` with a password, given or kept, answers
 * 422), the port must be a mail port and the host must resolve to public addresses only; each
 * refusal names its field and changes nothing.
 */
export async function saveEmailSettings(tenantId: string, body: EmailSettingsBody, options: SaveOptions = {}): Promise<EmailSettings> {
  const current = await readItem(tenantId);
  const sameServer =
    !!current &&
    sameText(current.host, body.host) &&
    (current.port ?? null) === (body.port ?? null) &&
    current.tlsMode === body.tlsMode &&
    (current.username ?? null) === (body.username ?? null);
  const keptPassword = body.password === undefined && sameServer ? current?.passwordSealed : undefined;
  const issues: FieldIssue[] = [];
  if (body.tlsMode === 'none' && (body.password || keptPassword)) {
    issues.push({ path: body.password ? 'password' : 'tlsMode', message: 'mail.passwordNeedsTls' });
  }
  if (body.host && body.port != null && !smtpPortAllowed(body.port)) {
    issues.push({ path: 'port', message: 'mail.portNotAllowed', params: { ports: SMTP_PORTS.join(', ') } });
  }
  if (body.host) {
    try {
      await pinSmtpHost(body.host, options.resolver);
    } catch (error) {
      if (!(error instanceof HostRefused)) throw error;
      issues.push(hostIssue(error));
    }
  }
  if (issues.length) throw new ValidationError(issues);
  const passwordSealed = body.password ? await sealSecret(body.password, PASSWORD(tenantId)) : keptPassword;
  const item = {
    tenantId,
    ...(body.senderAddress ? { senderAddress: body.senderAddress } : {}),
    ...(body.senderName ? { senderName: body.senderName } : {}),
    ...(body.host ? { host: body.host } : {}),
    ...(body.port != null ? { port: body.port } : {}),
    tlsMode: body.tlsMode,
    ...(body.username ? { username: body.username } : {}),
    ...(passwordSealed ? { passwordSealed } : {}),
    recipients: [...new Set(body.recipients.map((r) => r.toLowerCase()))],
    feverAlert: body.feverAlert,
    blacklistAlert: body.blacklistAlert,
    questionnaireAlert: body.questionnaireAlert,
    attendanceSummary: body.attendanceSummary,
    attendanceSummaryTime: body.attendanceSummaryTime,
    updatedAt: nowIso(),
    version: body.version + 1,
  };
  await versionedWrite(
    () =>
      body.version === 0
        ? mailSettings().create(item).go()
        : mailSettings()
            .put(item)
            .where((attr, op) => op.eq(attr.version, body.version))
            .go(),
    async () => true,
  );
  return toJson(item);
}

/** The SMTP server a company's mail goes through, password opened; undefined when it has none. */
export interface SmtpSettings {
  host: string;
  port: number;
  tlsMode: TlsMode;
  auth?: { user: string; pass: string };
  senderAddress: string;
  senderName?: string;
}

export interface MailRoute {
  smtp?: SmtpSettings;
  /** The company's sender name, used with the service's own sender when it has no SMTP server. */
  senderName?: string;
}

export async function mailRoute(tenantId: string): Promise<MailRoute> {
  const item = await readItem(tenantId);
  if (!item) return {};
  if (!item.host || !item.port || !item.senderAddress) return item.senderName ? { senderName: item.senderName } : {};
  // A password goes only over an encrypted connection, also one stored before that was checked at save.
  const pass = item.username && item.passwordSealed && item.tlsMode !== 'none' ? await openSecret(item.passwordSealed, PASSWORD(tenantId)) : undefined;
  return {
    smtp: {
      host: item.host,
      port: item.port,
      tlsMode: item.tlsMode,
      ...(item.username && pass !== undefined ? { auth: { user: item.username, pass } } : {}),
      senderAddress: item.senderAddress,
      ...(item.senderName ? { senderName: item.senderName } : {}),
    },
    ...(item.senderName ? { senderName: item.senderName } : {}),
  };
}
