import { useLingui } from '@lingui/react/macro';
import type { PassSource, PassState, RecordType, RefusalReason } from '@passcloud/functions/contract/passRecords';

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
    /** Why the terminal refused a pass; `unknown` when it did not say. */
    refusedFor: {
      unknown: t`Reason not stated`,
      blacklist: t`On the blacklist`,
      validity: t`Outside validity`,
      schedule: t`Outside schedule`,
      temperature: t`Temperature`,
      mask: t`No mask`,
      lockdown: t`Lockdown`,
    } satisfies Record<RefusalReason, string>,
    /** A stranger, or a visitor whose name the privacy settings do not keep. */
    unnamed: t`Unknown person`,
    /** A person on the device's blacklist whom the terminal let through anyway. */
    violation: t`Let through despite the blacklist`,
  };
}

export type RecordLabels = ReturnType<typeof useRecordLabels>;
