import * as z from 'zod';

/** File uploads (`/v1/files/uploads`): what the console and API clients send and get back. */

export const uploadKinds = ['avatar', 'capture', 'package'] as const;
/** The form fields of the one-request upload (multipart, the file in `file`). */
export const uploadFields = z.object({ kind: z.enum(uploadKinds) });

/** Photos go through a presigned upload straight to storage, so the full 5 MB fits on AWS. */
export const photoKinds = ['avatar', 'capture'] as const;
export type PhotoKind = (typeof photoKinds)[number];
export const photoContentTypes = ['image/jpeg', 'image/png'] as const;

export const presignBody = z.object({
  kind: z.enum(photoKinds),
  filename: z.string().trim().min(1).max(255),
  size: z.number().int().min(1),
  contentType: z.enum(photoContentTypes, { message: 'upload.notImage' }),
});

/** An upload key names a pending upload of the caller's tenant: the kind and 20 random characters. */
export const UPLOAD_KEY = /^(avatar|capture)-[0-9a-z]{20}$/;

/** What presign answers: PUT the file to `upload.url` with exactly these headers, then complete `uploadKey`. */
export const presignedUpload = z.object({
  uploadKey: z.string().meta({ description: 'Complete the upload under this key once the file is stored' }),
  upload: z
    .object({ url: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()) })
    .meta({ description: 'PUT the file to `url` with exactly these headers (and the size given) before the link expires' }),
});
export type PresignedUpload = z.output<typeof presignedUpload>;

/** A stored file: its key (for an avatar, the person's `avatar`) and a short-lived link to it. */
export const storedFile = z.object({
  fileKey: z.string().meta({ description: 'The file’s key: for a photo of kind `avatar`, the person’s `avatar`' }),
  url: z.string().meta({ description: 'A short-lived link to the file' }),
});
export type StoredFile = z.output<typeof storedFile>;

/**
 * `GET /v1/files/photoRules`: the rules a person's photo must meet in this company. SPEC's
 * minimum (640 × 480) raised to what its face terminals report they need to enrol a face; an
 * upload below it is refused naming the terminals that could not enrol it.
 */
export const photoRulesView = z.object({
  minWidth: z.number().int().meta({ description: 'The long side, in pixels, at least' }),
  minHeight: z.number().int().meta({ description: 'The short side, in pixels, at least' }),
  maxWidth: z.number().int(),
  maxHeight: z.number().int(),
  maxBytes: z.number().int(),
  terminals: z
    .array(z.object({ deviceKey: z.string(), name: z.string(), minWidth: z.number().int(), minHeight: z.number().int() }))
    .meta({ description: 'The face terminals that need more than 640 × 480, by name (the first 20)' }),
  terminalCount: z.number().int().meta({ description: 'How many face terminals need more than 640 × 480' }),
});
export type PhotoRulesView = z.output<typeof photoRulesView>;
