import * as z from 'zod';
import { UPLOAD_KEY, photoRulesView, presignBody, presignedUpload, storedFile, uploadFields, type PhotoKind, type PresignedUpload, type StoredFile } from '#contract/files';
import { IMAGE_MAX, IMAGE_MAX_BYTES, IMAGE_MIN, ONE_REQUEST_MAX_BYTES, PACKAGE_MAX_BYTES, judgeImage, looksLikeZip, type ImageVerdict } from '#domain/uploads';
import { companyPhotoRules, photoRulesView as rulesView, tooSmall } from '#views/photoRules';
import { newId } from '#lib/crypto';
import { NotFoundError, ValidationError, fieldError } from '#lib/errors';
import { created, defineResource, ok, parse, sessionRoute } from '#lib/http';
import { parseMultipart } from '#lib/multipart';
import { PRESIGN_SECONDS, deleteObject, getObjectBytes, objectSize, presignedGet, presignedPut, putObject, type BucketName } from '#lib/storage';
import { declareEnvironment } from '#lib/env';

/** The deployed variables this function reads (functions/lib/env.ts); its construct sets exactly these. */
export const environment = declareEnvironment(['AUDIT_QUEUE_URL', 'CAPTURES_BUCKET', 'IMPORTS_BUCKET', 'MAIN_TABLE', 'ORIGIN_VERIFY_SECRET', 'PACKAGES_BUCKET', 'PHOTOS_BUCKET', 'RECORDINGS_BUCKET']);

/**
 * Uploads. A photo (avatar, capture) goes through a presigned upload: presign checks its type and
 * size and answers a link signed for exactly that many bytes of that type; the client PUTs the
 * file straight to storage and completes it; complete judges the bytes and stores the photo. A
 * client package (and any small file of an API client) is sent in the request itself, which
 * Lambda limits to 6 MB, so such files are at most 4 MB.
 */

const MB = 1024 * 1024;
const bucketOf = { avatar: 'photos', capture: 'captures', package: 'packages' } as const satisfies Record<string, BucketName>;

/**
 * Uploads wait in the imports bucket until completed: the console may PUT to it from its origin,
 * and the bucket expires whatever is never completed (after two days).
 */
const STAGING_BUCKET = 'imports' satisfies BucketName;
const stagingKey = (uploadKey: string): string => `staging/${uploadKey}`;

/** The refusal of an image that is not JPG or PNG, unreadable, or out of the pixel bounds. */
function imageRefusal(verdict: Extract<ImageVerdict, { ok: false }>): ValidationError {
  const params =
    'width' in verdict
      ? { width: verdict.width, height: verdict.height, minWidth: IMAGE_MIN.width, minHeight: IMAGE_MIN.height, maxWidth: IMAGE_MAX.width, maxHeight: IMAGE_MAX.height }
      : undefined;
  return fieldError('file', verdict.problem, params);
}

/**
 * Judges an image of its kind: a person's photo (avatar) by the company's photo rules, so one its
 * face terminals could not enrol is refused naming them; a capture by SPEC's rules alone.
 */
async function judgeUpload(tenantId: string, kind: PhotoKind, bytes: Buffer): Promise<Extract<ImageVerdict, { ok: true }>> {
  if (kind !== 'avatar') {
    const verdict = judgeImage(bytes);
    if (!verdict.ok) throw imageRefusal(verdict);
    return verdict;
  }
  const rules = await companyPhotoRules(tenantId);
  const verdict = judgeImage(bytes, rules.min);
  if (verdict.ok) return verdict;
  if (verdict.problem !== 'upload.tooFewPixels') throw imageRefusal(verdict);
  const { message, params } = tooSmall(rules, verdict.width, verdict.height);
  throw fieldError('file', message, params);
}

/** Stores the file under a new key of its kind; answers the key and a short-lived link to it. */
async function store(tenantId: string, kind: keyof typeof bucketOf, data: Buffer, extension: string, contentType: string): Promise<StoredFile> {
  const month = new Date().toISOString().slice(0, 7).replace('-', '/');
  const fileKey = `${kind}/${month}/${newId()}.${extension}`;
  await putObject(bucketOf[kind], tenantId, fileKey, data, contentType);
  return { fileKey, url: await presignedGet(bucketOf[kind], tenantId, fileKey) };
}

/** The staged upload's bytes, or undefined when it is gone (completed at the same moment). */
async function stagedBytes(tenantId: string, key: string): Promise<Buffer | undefined> {
  try {
    return await getObjectBytes(STAGING_BUCKET, tenantId, key);
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export const files = defineResource('files', {
  'GET /v1/files/photoRules': sessionRoute({
    answer: photoRulesView,
    async handle({ auth }) {
      return ok(rulesView(await companyPhotoRules(auth.tenantId)));
    },
  }),

  'POST /v1/files/uploads': sessionRoute({
    raw: true,
    answer: storedFile,
    async handle({ auth, headers, rawBody, locale }) {
      // One byte over the limit, so that a file of exactly the limit does not come back truncated.
      const form = await parseMultipart(headers['content-type'], rawBody, ONE_REQUEST_MAX_BYTES + 1);
      const { kind } = parse(uploadFields, form.fields, locale, '') as z.output<typeof uploadFields>;
      const file = form.files.find((f) => f.field === 'file');
      if (!file || file.data.length === 0) throw fieldError('file', 'upload.fileMissing');
      const maxBytes = Math.min(kind === 'package' ? PACKAGE_MAX_BYTES : IMAGE_MAX_BYTES, ONE_REQUEST_MAX_BYTES);
      if (file.truncated || file.data.length > maxBytes) throw fieldError('file', 'upload.tooBig', { max: maxBytes / MB });

      if (kind === 'package') {
        if (!looksLikeZip(file.data)) throw fieldError('file', 'upload.notPackage');
        const extension = file.filename.toLowerCase().endsWith('.apk') ? 'apk' : 'zip';
        return created(await store(auth.tenantId, kind, file.data, extension, extension === 'apk' ? 'application/vnd.android.package-archive' : 'application/zip'));
      }
      const verdict = await judgeUpload(auth.tenantId, kind, file.data);
      return created(await store(auth.tenantId, kind, file.data, verdict.type, verdict.type === 'jpg' ? 'image/jpeg' : 'image/png'));
    },
  }),

  'POST /v1/files/uploads/presign': sessionRoute({
    body: presignBody,
    answer: presignedUpload,
    async handle({ auth, body }) {
      if (body.size > IMAGE_MAX_BYTES) throw fieldError('size', 'upload.tooBig', { max: IMAGE_MAX_BYTES / MB });
      const uploadKey = `${body.kind}-${newId(20)}`;
      const url = await presignedPut(STAGING_BUCKET, auth.tenantId, stagingKey(uploadKey), body.contentType, PRESIGN_SECONDS, { contentLength: body.size });
      const answer: PresignedUpload = { uploadKey, upload: { url, method: 'PUT', headers: { 'content-type': body.contentType } } };
      return created(answer);
    },
  }),

  'POST /v1/files/uploads/{uploadKey}/complete': sessionRoute({
    params: z.object({ uploadKey: z.string() }),
    answer: storedFile,
    async handle({ auth, params }) {
      // The key names an object under the caller's own tenant only, and only in the form presign makes.
      if (!UPLOAD_KEY.test(params.uploadKey)) throw new NotFoundError();
      const kind = params.uploadKey.slice(0, params.uploadKey.indexOf('-')) as PhotoKind;
      const key = stagingKey(params.uploadKey);
      // None: never uploaded, already completed, expired, or a key of another tenant.
      const size = await objectSize(STAGING_BUCKET, auth.tenantId, key);
      if (size === undefined) throw new NotFoundError();
      const refuse = async (error: ValidationError): Promise<never> => {
        await deleteObject(STAGING_BUCKET, auth.tenantId, key);
        throw error;
      };
      const tooBig = () => fieldError('file', 'upload.tooBig', { max: IMAGE_MAX_BYTES / MB });
      // S3 takes only the signed length; checked here too, before reading, for stores that do not verify it.
      if (size > IMAGE_MAX_BYTES) return refuse(tooBig());
      const bytes = await stagedBytes(auth.tenantId, key);
      if (!bytes) throw new NotFoundError();
      if (bytes.length === 0) return refuse(fieldError('file', 'upload.fileMissing'));
      if (bytes.length > IMAGE_MAX_BYTES) return refuse(tooBig());
      let verdict: Extract<ImageVerdict, { ok: true }>;
      try {
        verdict = await judgeUpload(auth.tenantId, kind, bytes);
      } catch (error) {
        if (error instanceof ValidationError) return refuse(error);
        throw error;
      }
      const stored = await store(auth.tenantId, kind, bytes, verdict.type, verdict.type === 'jpg' ? 'image/jpeg' : 'image/png');
      await deleteObject(STAGING_BUCKET, auth.tenantId, key);
      return created(stored);
    },
  }),
});

export const handler = files.handler;
