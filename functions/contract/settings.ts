import * as z from 'zod';

/** System settings (`/v1/settings/system`) and privacy settings (`/v1/settings/privacy`). */

/** The product's code version (SPEC.md §1). */
export const CODE_VERSION = '3.2.0';

/** A client install package (.apk) is at most 200 MB and reaches storage through a presigned upload. */
export const CLIENT_PACKAGE_MAX_BYTES = 200 * 1024 * 1024;
export const APK_CONTENT_TYPE = 'application/vnd.android.package-archive';
/** A version as `3.2.1`: three numbers, each without leading zeros. */
export const VERSION_PATTERN = /^(0|[1-9]\d{0,4})\.(0|[1-9]\d{0,4})\.(0|[1-9]\d{0,4})$/;

export const packagePresignBody = z
  .object({
    version: z.string().trim().regex(VERSION_PATTERN, { message: 'settings.versionFormat' }),
    filename: z
      .string()
      .trim()
      .min(1)
      .max(255)
      .refine((name) => name.toLowerCase().endsWith('.apk'), { message: 'settings.notApk' }),
    size: z.number().int().min(1),
  })
  .strict();

/** A package key: `pkg` and 20 random characters, named by presign. */
export const PACKAGE_KEY = /^pkg[0-9a-z]{20}$/;
export const packageKeyParams = z.object({ packageKey: z.string().regex(PACKAGE_KEY, { message: 'error.itemNotFound' }) });

/** What presign answers: PUT the file to `upload.url` with exactly these headers, then complete `packageKey`. */
export const presignedPackage = z.object({
  packageKey: z.string().meta({ description: 'Complete the upload under this key' }),
  upload: z
    .object({
      url: z.string().meta({ description: 'A presigned address that takes the file of exactly the announced size; the upload must start within the hour' }),
      method: z.literal('PUT'),
      headers: z.record(z.string(), z.string()).meta({ description: 'Send exactly these headers with the file' }),
    })
    .meta({ description: 'How to send the file to storage' }),
});
export type PresignedPackage = z.output<typeof presignedPackage>;

/** The latest client package, as `GET /v1/settings/system` shows it. */
const clientRelease = z.object({
  version: z.string(),
  size: z.number().int().meta({ description: 'In bytes' }),
  sha256: z.string().meta({ description: 'The file’s SHA-256, in hex' }),
  uploadTime: z.iso.datetime(),
});
export type ClientRelease = z.output<typeof clientRelease>;

/** `GET /v1/settings/system`: how devices and integrators reach the service, the versions, the client package. */
export const systemInfo = z.object({
  apiBaseUrl: z.string().meta({ description: 'Base URL of the API, ending in `/v1`' }),
  mqtt: z
    .object({
      endpoint: z.string().meta({ description: 'The broker’s host name or address' }),
      tcpPort: z.number().int().meta({ description: 'The port of MQTT over TCP (TLS where the broker’s address says so)' }),
      wsPort: z.number().int().meta({ description: 'The port of MQTT over WebSocket' }),
      wsPath: z.string().meta({ description: 'The WebSocket path, `/mqtt` unless the broker’s address says otherwise' }),
    })
    .meta({ description: 'The MQTT broker as devices reach it' }),
  database: z
    .object({
      endpoint: z.string().meta({ description: 'The DynamoDB endpoint’s host name or address (the region’s on AWS)' }),
      port: z.number().int().meta({ description: 'Its port: 443 (HTTPS) on AWS' }),
    })
    .meta({ description: 'The database the service keeps its data in: only the service itself connects to it' }),
  version: z.string().meta({ description: 'The product’s code version' }),
  buildId: z.string().meta({ description: 'The deployed build; `dev` on a local stack' }),
  client: clientRelease.nullable().meta({ description: 'The latest client install package; null when none was uploaded' }),
});
export type SystemInfo = z.output<typeof systemInfo>;

/** What `complete` answers: the package as recorded and how many online terminals were told of it. */
export const completedPackage = clientRelease.extend({
  packageKey: z.string(),
  notified: z.number().int().meta({ description: 'Online terminals told of the new package' }),
});
export type CompletedPackage = z.output<typeof completedPackage>;

/** Retention periods in days; the upper bounds are where the buckets' own lifecycle ends every object. */
export const RETENTION_BOUNDS = {
  passRecords: { min: 1, max: 3650 },
  captures: { min: 1, max: 180 },
  recordings: { min: 1, max: 365 },
} as const;
export type RetentionKind = keyof typeof RETENTION_BOUNDS;

const days = (kind: RetentionKind) => z.number().int().min(RETENTION_BOUNDS[kind].min).max(RETENTION_BOUNDS[kind].max);

export const privacyFields = {
  /** Pass records keep the measured temperature. */
  saveTemperature: z.boolean(),
  /** Pass records keep the capture photo (and the person's avatar with it). */
  savePhotos: z.boolean(),
  /** Pass records of visitors keep the visitor's name. */
  saveVisitorName: z.boolean(),
  retentionDays: z
    .object({ passRecords: days('passRecords'), captures: days('captures'), recordings: days('recordings') })
    .strict(),
};

/** `PUT /v1/settings/privacy`: the whole set, with the version last read. */
export const privacyBody = z.object({ ...privacyFields, version: z.number().int().min(1) }).strict();

/** What pass records keep and how long records and files are kept. */
const privacySettings = z.object({
  saveTemperature: z.boolean().meta({ description: 'Pass records keep the measured temperature' }),
  savePhotos: z.boolean().meta({ description: 'Pass records keep the capture photo (and the person’s avatar with it)' }),
  saveVisitorName: z.boolean().meta({ description: 'Pass records of visitors keep the visitor’s name' }),
  retentionDays: z
    .object({ passRecords: z.number().int(), captures: z.number().int(), recordings: z.number().int() })
    .meta({ description: 'How many days pass records, capture photos and call recordings are kept' }),
});
export type PrivacySettings = z.output<typeof privacySettings>;

/** What `GET` and `PUT /v1/settings/privacy` answer: the settings in force and their version. */
export const privacyAnswer = privacySettings.extend({
  version: z.number().int().meta({ description: '1 while the company has never saved them (the defaults are in force); send it back with a change' }),
});

/** What a company starts with. */
export const DEFAULT_PRIVACY: PrivacySettings = {
  saveTemperature: true,
  savePhotos: true,
  saveVisitorName: true,
  retentionDays: { passRecords: 180, captures: 90, recordings: 180 },
};
