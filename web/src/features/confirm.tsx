import type { ReactNode } from 'react';
import { Text } from '@mantine/core';
import { modals } from '@mantine/modals';
import { t } from '@lingui/core/macro';

/**
 * The confirmations the console's screens ask before a change that cannot be taken back (a
 * delete, a revocation, turning something off) and before dropping unsaved edits. They live with
 * the screens, not in components/, because only the console (inside the modals provider) asks them.
 */

export interface Confirmation {
  title: string;
  /** What the change does, in the person's words; a sentence is set as text. */
  text: ReactNode;
  /** The confirm button's label: the change's own verb. */
  confirm: string;
  /** The confirm button's colour: red for what destroys, orange for what interrupts. */
  color?: string;
  /** Test ids of the buttons: `confirm-<testId>` and `cancel-<testId>`. */
  testId?: string;
  onConfirm(): void;
}

/** Asks before a change; Cancel (or closing the dialog) leaves everything as it is. */
export function confirmAction({ title, text, confirm, color, testId, onConfirm }: Confirmation): void {
  modals.openConfirmModal({
    title,
    children: typeof text === 'string' ? <Text size="sm">{text}</Text> : text,
    labels: { confirm, cancel: t`Cancel` },
    confirmProps: { color, ...(testId ? { 'data-testid': `confirm-${testId}` } : {}) },
    cancelProps: testId ? { 'data-testid': `cancel-${testId}` } : undefined,
    onConfirm,
  });
}

/** Leaves a form (`leave`) at once when nothing changed, else after asking whether to drop the changes. */
export function confirmDiscard(dirty: boolean, leave: () => void, text: string = t`Leave this page without saving?`): void {
  if (!dirty) {
    leave();
    return;
  }
  confirmAction({ title: t`Discard changes`, text, confirm: t`Discard changes`, color: 'red', testId: 'discard', onConfirm: leave });
}
