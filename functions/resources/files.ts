import { uploadFields } from '#contract/systems';
import { IMAGE_MAX, IMAGE_MAX_BYTES, IMAGE_MIN, PACKAGE_MAX_BYTES, judgeImage, looksLikeZip } from '#domain/uploads';
import { newId } from '#lib/crypto';
import { ValidationError, fieldError } from '#lib/errors';
import { created, defineResource, sessionRoute } from '#lib/http';
import { parseMultipart } from '#lib/multipart';
import { presignedGet, putObject, type BucketName } from '#lib/storage';

const MB = 1024 * 1024;
const bucketOf = { avatar: 'photos', capture: 'captures', package: 'packages' } as const satisfies Record<string, BucketName>;

export const files = defineResource('files', {
  'POST /v1/files/uploads': sessionRoute({
    raw: true,
    async handle({ auth, headers, rawBody }) {
      const form = await parseMultipart(headers['content-type'], rawBody, Math.max(IMAGE_MAX_BYTES, PACKAGE_MAX_BYTES));
      const parsed = uploadFields.safeParse(form.fields);
      if (!parsed.success) throw new ValidationError([{ path: 'kind', message: { text: parsed.error.issues[0]?.message ?? 'invalid' } }]);
      const { kind } = parsed.data;
      const file = form.files.find((f) => f.field === 'file');
      if (!file || file.data.length === 0) throw fieldError('file', 'upload.fileMissing');

      let extension: string;
      let contentType: string;
      if (kind === 'package') {
        if (file.truncated || file.data.length > PACKAGE_MAX_BYTES) throw fieldError('file', 'upload.tooBig', { max: PACKAGE_MAX_BYTES / MB });
        if (!looksLikeZip(file.data)) throw fieldError('file', 'upload.notPackage');
        extension = file.filename.toLowerCase().endsWith('.apk') ? 'apk' : 'zip';
        contentType = extension === 'apk' ? 'application/vnd.android.package-archive' : 'application/zip';
      } else {
        if (file.truncated || file.data.length > IMAGE_MAX_BYTES) throw fieldError('file', 'upload.tooBig', { max: IMAGE_MAX_BYTES / MB });
        const verdict = judgeImage(file.data);
        if (!verdict.ok) {
          const params =
            'width' in verdict
              ? { width: verdict.width, height: verdict.height, minWidth: IMAGE_MIN.width, minHeight: IMAGE_MIN.height, maxWidth: IMAGE_MAX.width, maxHeight: IMAGE_MAX.height }
              : undefined;
          throw fieldError('file', verdict.problem, params);
        }
        extension = verdict.type;
        contentType = verdict.type === 'jpg' ? 'image/jpeg' : 'image/png';
      }
      const month = new Date().toISOString().slice(0, 7).replace('-', '/');
      const fileKey = `${kind}/${month}/${newId()}.${extension}`;
      await putObject(bucketOf[kind], auth.tenantId, fileKey, file.data, contentType);
      return created({ fileKey, url: await presignedGet(bucketOf[kind], auth.tenantId, fileKey) });
    },
  }),
});

export const handler = files.handler;
