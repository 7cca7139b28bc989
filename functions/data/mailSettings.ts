import { Entity, type EntityItem } from 'electrodb';
import type { EmailSettings, EmailSettingsBody, TlsMode } from '#contract/mail';
import { fieldError } from '#lib/errors';
import { openSecret, sealSecret } from '#lib/secretBox';
import { MAIN_TABLE } from './tables.ts';
import { SERVICE, entityConfig, lazy, nowIso, tenantPartition, versionedWrite } from './entity.ts';

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
          attendanceSummary: { type: 'boolean', required: true },
          attendanceSummaryTime: { type: 'string', required: true },
          updatedAt: { type: 'string', required: true },
          version: { type: 'number', required: true },
        },
        indexes: {
          primary: { pk: tenantPartition, sk: { field: 'sk', composite: [], template: 'settings#email', casing: 'none' } },
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

/**
 * Saves the whole set when `version` is the one last read (0: never saved); a stale version
 * changes nothing and answers 409. A body without `password` keeps the stored one.
 */
export async function saveEmailSettings(tenantId: string, body: EmailSettingsBody): Promise<EmailSettings> {
  const current = await readItem(tenantId);
  const passwordSealed =
    body.password === undefined ? current?.passwordSealed : body.password === null ? undefined : await sealSecret(body.password, PASSWORD(tenantId));
  // A username with no password to go with it (neither given nor stored) cannot log in.
  if (body.username && !passwordSealed) throw fieldError('password', 'issue.required');
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
  const pass = item.username && item.passwordSealed ? await openSecret(item.passwordSealed, PASSWORD(tenantId)) : undefined;
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
