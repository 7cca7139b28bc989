import { useEffect } from 'react';
import { useLingui } from '@lingui/react/macro';

/** Page title = the screen's title plus the product tagline. */
export function useTitle(title: string): void {
  const { t } = useLingui();
  useEffect(() => {
    document.title = `${title} - ${t`Pass Cloud · face recognition access control`}`;
  }, [title, t]);
}
