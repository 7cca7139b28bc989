import { useLingui } from '@lingui/react/macro';
import type { PassSource, PassState, RecordType } from '@passcloud/functions/contract/passRecords';

export const TYPE_COLOR: Record<RecordType, string> = { employee: 'blue', visitor: 'grape', stranger: 'gray', blacklist: 'red' };
export const STATE_COLOR: Record<PassState, string> = { passed: 'teal', refused: 'red' };

/** The names the record screens give to types, pass states, sources and temperatures. */
export function useRecordLabels() {
  const { t } = useLingui();
  return {
    type: { employee: t`Employee`, visitor: t`Visitor`, stranger: t`Stranger`, blacklist: t`Blacklist` } satisfies Record<RecordType, string>,
    passState: { passed: t`Passed`, refused: t`Refused` } satisfies Record<PassState, string>,
    source: { face: t`Face`, card: t`IC card`, qr: t`QR code`, remote: t`Remote opening` } satisfies Record<PassSource, string>,
    temperature: { normal: t`Normal temperature`, fever: t`Fever` },
    /** A stranger, or a visitor whose name the privacy settings do not keep. */
    unnamed: t`Unknown person`,
    /** A person on the device's blacklist whom the terminal let through anyway. */
    violation: t`Let through despite the blacklist`,
  };
}

export type RecordLabels = ReturnType<typeof useRecordLabels>;
