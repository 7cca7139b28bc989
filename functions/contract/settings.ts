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
export interface PresignedPackage {
  packageKey: string;
  upload: { url: string; method: 'PUT'; headers: Record<string, string> };
}

/** The latest client package, as `GET /v1/settings/system` shows it. */
export interface ClientRelease {
  version: string;
  size: number;
  sha256: string;
  uploadTime: string;
}

export interface SystemInfo {
  /** Base URL of the API, ending in `/v1`. */
  apiBaseUrl: string;
  mqtt: { endpoint: string; tcpPort: number; wsPort: number; wsPath: string };
  version: string;
  buildId: string;
  client: ClientRelease | null;
}

/** What `complete` answers: the package as recorded and how many online terminals were told of it. */
export interface CompletedPackage extends ClientRelease {
  packageKey: string;
  notified: number;
}

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

export interface PrivacySettings {
  saveTemperature: boolean;
  savePhotos: boolean;
  saveVisitorName: boolean;
  retentionDays: Record<RetentionKind, number>;
}

/** What a company starts with. */
export const DEFAULT_PRIVACY: PrivacySettings = {
  saveTemperature: true,
  savePhotos: true,
  saveVisitorName: true,
  retentionDays: { passRecords: 180, captures: 90, recordings: 180 },
};
