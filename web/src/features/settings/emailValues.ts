import type { EmailSettings, TestMailAnswer, TlsMode } from '@passcloud/functions/contract/mail';

/** The email settings form's values, its checks that mirror the server's, and the body a save sends. */

/** What the password field does on save: keep the stored one, replace it, or clear it. */
export type PasswordAction = 'keep' | 'replace' | 'clear';

export interface Values {
  senderAddress: string;
  senderName: string;
  host: string;
  port: number | string;
  tlsMode: TlsMode;
  username: string;
  password: string;
  recipients: string[];
  feverAlert: boolean;
  blacklistAlert: boolean;
  questionnaireAlert: boolean;
  attendanceSummary: boolean;
  attendanceSummaryTime: string;
}

/** What a test mail answers: whether it went out, and to whom. */
export type TestAnswer = TestMailAnswer;

export const FIELDS: (keyof Values)[] = [
  'senderAddress',
  'senderName',
  'host',
  'port',
  'tlsMode',
  'username',
  'password',
  'recipients',
  'feverAlert',
  'blacklistAlert',
  'questionnaireAlert',
  'attendanceSummary',
  'attendanceSummaryTime',
];
/** The server's checks (contract/mail.ts), in the form. */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const HOST = /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^[0-9A-Fa-f:]{2,39}$/;
export const DEFAULT_PORT: Record<TlsMode, number> = { none: 25, starttls: 587, tls: 465 };

/** The settings of a company that has saved none, shown until the saved ones arrive. */
export const NO_SETTINGS: EmailSettings = {
  senderAddress: null,
  senderName: null,
  host: null,
  port: null,
  tlsMode: 'starttls',
  username: null,
  passwordSet: false,
  recipients: [],
  feverAlert: false,
  blacklistAlert: false,
  questionnaireAlert: false,
  attendanceSummary: false,
  attendanceSummaryTime: '18:00',
  version: 0,
  updateTime: null,
};

export function valuesOf(settings: EmailSettings): Values {
  return {
    senderAddress: settings.senderAddress ?? '',
    senderName: settings.senderName ?? '',
    host: settings.host ?? '',
    port: settings.port ?? '',
    tlsMode: settings.tlsMode,
    username: settings.username ?? '',
    password: '',
    recipients: settings.recipients,
    feverAlert: settings.feverAlert,
    blacklistAlert: settings.blacklistAlert,
    questionnaireAlert: settings.questionnaireAlert,
    attendanceSummary: settings.attendanceSummary,
    attendanceSummaryTime: settings.attendanceSummaryTime,
  };
}

/** What a save sends: the password only when it is replaced (with a new one) or cleared. */
export function bodyOf(values: Values, action: PasswordAction, version: number) {
  const text = (value: string) => value.trim() || null;
  const password = action === 'clear' ? null : action === 'replace' && values.password ? values.password : undefined;
  return {
    senderAddress: text(values.senderAddress),
    senderName: text(values.senderName),
    host: text(values.host),
    port: values.port === '' ? null : Number(values.port),
    tlsMode: values.tlsMode,
    username: text(values.username),
    ...(password !== undefined ? { password } : {}),
    recipients: values.recipients,
    feverAlert: values.feverAlert,
    blacklistAlert: values.blacklistAlert,
    questionnaireAlert: values.questionnaireAlert,
    attendanceSummary: values.attendanceSummary,
    attendanceSummaryTime: values.attendanceSummaryTime,
    version,
  };
}
