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
export interface PresignedUpload {
  uploadKey: string;
  upload: { url: string; method: 'PUT'; headers: Record<string, string> };
}

/** A stored file: its key (for an avatar, the person's `avatar`) and a short-lived link to it. */
export interface StoredFile {
  fileKey: string;
  url: string;
}
