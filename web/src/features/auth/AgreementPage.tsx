import { useEffect, useState } from 'react';
import { Loader, Text } from '@mantine/core';
import { useLingui } from '@lingui/react/macro';
import { api } from '../../app/api.ts';
import { storedLocale } from '../../app/locales.ts';
import { PublicLayout } from '../../components/PublicLayout.tsx';

/** The service terms in the current language, from the server. */
export default function AgreementPage() {
  const { t } = useLingui();
  const [terms, setTerms] = useState<{ title: string; content: string } | null>(null);
  useEffect(() => {
    api.get<{ title: string; content: string }>('/v1/systems/terms', { query: { locale: storedLocale() } }).then(setTerms, () => undefined);
  }, []);
  return (
    <PublicLayout title={terms?.title ?? t`Service terms`} width={760}>
      {terms ? (
        <Text style={{ whiteSpace: 'pre-line' }} data-testid="terms">
          {terms.content}
        </Text>
      ) : (
        <Loader size="sm" />
      )}
    </PublicLayout>
  );
}
