import { useEffect, useState } from 'react';
import { Button } from '@mantine/core';
import { Trans } from '@lingui/react/macro';

export const RESEND_SECONDS = 60;

/** Sends a verification code; disabled while its countdown in seconds runs. */
export function CodeButton({ send, disabled }: { send: () => Promise<boolean>; disabled?: boolean }) {
  const [left, setLeft] = useState(0);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft(left - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);
  return (
    <Button
      variant="light"
      loading={busy}
      disabled={disabled || left > 0}
      data-testid="send-code"
      onClick={async () => {
        setBusy(true);
        try {
          if (await send()) setLeft(RESEND_SECONDS);
        } finally {
          setBusy(false);
        }
      }}
      miw={130}
    >
      {left > 0 ? <Trans>Resend in {left} s</Trans> : <Trans>Send code</Trans>}
    </Button>
  );
}
