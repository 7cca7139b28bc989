/** The photo rules of SPEC.md §5, checked in the browser before the upload (the server checks again). */
export const PHOTO_MAX_BYTES = 5 * 1024 * 1024;

export type PhotoProblem = 'type' | 'size' | 'small' | 'large' | 'unreadable';
export type PhotoContentType = 'image/jpeg' | 'image/png';

/** The image type by the file's first bytes (not its name), or null when it is neither JPG nor PNG. */
export async function photoContentType(file: Blob): Promise<PhotoContentType | null> {
  const head = new Uint8Array(await file.slice(0, 8).arrayBuffer());
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  if ([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => head[i] === b)) return 'image/png';
  return null;
}

export async function checkPhoto(file: File): Promise<PhotoProblem | null> {
  if (!(await photoContentType(file))) return 'type';
  if (file.size > PHOTO_MAX_BYTES) return 'size';
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return 'unreadable';
  }
  const long = Math.max(bitmap.width, bitmap.height);
  const short = Math.min(bitmap.width, bitmap.height);
  bitmap.close();
  if (long < 640 || short < 480) return 'small';
  if (long > 4096 || short > 2688) return 'large';
  return null;
}
