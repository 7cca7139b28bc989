import { imageSize } from 'image-size';

/** Upload rules of SPEC.md §5: images are JPG or PNG by their bytes, at most 5 MB, 640×480 to 4096×2688. */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_MIN = { width: 640, height: 480 } as const;
export const IMAGE_MAX = { width: 4096, height: 2688 } as const;

/**
 * Lambda takes at most 6 MB per invocation, the request event and the response alike, and API
 * Gateway hands a binary body over base64-encoded (4/3 of its bytes), with the headers around it.
 */
export const LAMBDA_PAYLOAD_MAX_BYTES = 6 * 1024 * 1024;
/**
 * A file sent in the request itself (multipart) is at most this large, so the event that carries
 * it always fits: 4 MB is 5.33 MB in base64, leaving room for the form and the headers. Larger
 * files go through a presigned upload straight to S3 (a photo, a background import).
 */
export const ONE_REQUEST_MAX_BYTES = 4 * 1024 * 1024;
/** Client packages still travel in one request; larger ones need a presigned upload. */
export const PACKAGE_MAX_BYTES = ONE_REQUEST_MAX_BYTES;

export type ImageType = 'jpg' | 'png';

export function sniffImage(bytes: Buffer): ImageType | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg';
  if (bytes.length >= 8 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  return undefined;
}

/** ZIP and APK files both start with a local file header. */
export const looksLikeZip = (bytes: Buffer): boolean => bytes.length >= 4 && bytes.readUInt32LE(0) === 0x04034b50;

export type ImageVerdict =
  | { ok: true; type: ImageType; width: number; height: number }
  | { ok: false; problem: 'upload.notImage' | 'upload.unreadableImage' }
  | { ok: false; problem: 'upload.tooFewPixels' | 'upload.tooManyPixels'; width: number; height: number };

/** Judges an image by its bytes; the name and the declared type are never trusted. `min` is a company's photo rules' (companyPhotoRules). */
export function judgeImage(bytes: Buffer, min: { width: number; height: number } = IMAGE_MIN): ImageVerdict {
  const type = sniffImage(bytes);
  if (!type) return { ok: false, problem: 'upload.notImage' };
  let size: { width?: number; height?: number; orientation?: number };
  try {
    size = imageSize(bytes);
  } catch {
    return { ok: false, problem: 'upload.unreadableImage' };
  }
  if (!size.width || !size.height) return { ok: false, problem: 'upload.unreadableImage' };
  // EXIF orientations 5-8 rotate the picture a quarter turn: judge it as it is shown.
  const [width, height] = size.orientation && size.orientation >= 5 ? [size.height, size.width] : [size.width, size.height];
  const landscape = { w: Math.max(width, height), h: Math.min(width, height) };
  if (landscape.w < min.width || landscape.h < min.height) return { ok: false, problem: 'upload.tooFewPixels', width, height };
  if (landscape.w > IMAGE_MAX.width || landscape.h > IMAGE_MAX.height) return { ok: false, problem: 'upload.tooManyPixels', width, height };
  return { ok: true, type, width, height };
}

/** What a face terminal reported it needs of a photo to enrol a face from it: long side × short side, in pixels. */
export interface EnrolmentNeeds {
  minWidth: number;
  minHeight: number;
}

/** A terminal that needs more of a photo than SPEC's minimum. */
export interface NeedyTerminal {
  deviceKey: string;
  name: string;
  minWidth: number;
  minHeight: number;
}

/**
 * The photo rules of a company's people: SPEC's minimum raised to what its bound face terminals
 * report they need, so a photo it takes is one every terminal can enrol. Terminals that report
 * nothing keep SPEC's minimum. `terminals` are those that need more, by name.
 */
export interface PhotoRules {
  min: { width: number; height: number };
  terminals: NeedyTerminal[];
}

export function photoRulesOf(terminals: readonly { deviceKey: string; name: string; enrolment?: EnrolmentNeeds | undefined }[]): PhotoRules {
  const needy: NeedyTerminal[] = [];
  for (const t of terminals) {
    if (!t.enrolment) continue;
    // Either orientation: what matters is the long side and the short side.
    const minWidth = Math.max(t.enrolment.minWidth, t.enrolment.minHeight);
    const minHeight = Math.min(t.enrolment.minWidth, t.enrolment.minHeight);
    if (minWidth > IMAGE_MIN.width || minHeight > IMAGE_MIN.height) needy.push({ deviceKey: t.deviceKey, name: t.name, minWidth, minHeight });
  }
  needy.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }) || (a.deviceKey < b.deviceKey ? -1 : 1));
  return {
    min: {
      width: Math.min(IMAGE_MAX.width, Math.max(IMAGE_MIN.width, ...needy.map((t) => t.minWidth))),
      height: Math.min(IMAGE_MAX.height, Math.max(IMAGE_MIN.height, ...needy.map((t) => t.minHeight))),
    },
    terminals: needy,
  };
}

/** The terminals of the rules that could not enrol a face from a photo of this size (either orientation). */
export function refusingTerminals(rules: PhotoRules, width: number, height: number): NeedyTerminal[] {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  return rules.terminals.filter((t) => long < t.minWidth || short < t.minHeight);
}
