import type { PhotoRulesView } from '#contract/files';
import { allFaceTerminals } from '#data/devices';
import { IMAGE_MAX, IMAGE_MAX_BYTES, IMAGE_MIN, photoRulesOf, refusingTerminals, type EnrolmentNeeds, type PhotoRules } from '#domain/uploads';
import type { MessageId, MessageParams } from '#lib/i18n';

/**
 * The photo rules of a company's people, as the upload, the photo import and the person form read
 * them: SPEC's minimum raised to what its bound face terminals report they need (intercoms enrol
 * no faces), so a photo the console takes is one its terminals enrol.
 */
export async function companyPhotoRules(tenantId: string): Promise<PhotoRules> {
  const terminals = await allFaceTerminals(tenantId);
  return photoRulesOf(terminals.map((d) => ({ deviceKey: d.deviceKey, name: d.name, enrolment: d.enrolment as EnrolmentNeeds | undefined })));
}

/** A refusal names at most this many terminals, then says how many more. */
const NAMED = 5;
/** The person form's hint names at most this many. */
const LISTED = 20;

/**
 * Why a photo of this size is too small under the rules: the terminals that could not enrol it,
 * named, when there are any (else SPEC's minimum). The message of `file`'s issue, with its parameters.
 */
export function tooSmall(rules: PhotoRules, width: number, height: number): { message: MessageId; params: MessageParams } {
  const refusing = refusingTerminals(rules, width, height);
  const sizes = { width, height, maxWidth: IMAGE_MAX.width, maxHeight: IMAGE_MAX.height };
  if (refusing.length === 0) return { message: 'upload.tooFewPixels', params: { ...sizes, minWidth: IMAGE_MIN.width, minHeight: IMAGE_MIN.height } };
  const terminals = refusing
    .slice(0, NAMED)
    .map((t) => t.name)
    .join(', ');
  const params = { ...sizes, minWidth: rules.min.width, minHeight: rules.min.height, terminals };
  return refusing.length > NAMED
    ? { message: 'upload.manyTerminalsNeedMore', params: { ...params, more: refusing.length - NAMED } }
    : { message: 'upload.terminalsNeedMore', params };
}

/** `GET /v1/files/photoRules`: what the person form states and checks. */
export function photoRulesView(rules: PhotoRules): PhotoRulesView {
  return {
    minWidth: rules.min.width,
    minHeight: rules.min.height,
    maxWidth: IMAGE_MAX.width,
    maxHeight: IMAGE_MAX.height,
    maxBytes: IMAGE_MAX_BYTES,
    terminals: rules.terminals.slice(0, LISTED),
    terminalCount: rules.terminals.length,
  };
}
