import { useMemo } from 'react';
import { Alert, Anchor, Box, Container, Group, Paper, Stack, Typography } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { Marked } from 'marked';
import { Link } from 'react-router-dom';
import { Brand } from '../../components/Brand.tsx';
import { LanguageSelect } from '../../components/LanguageSelect.tsx';
import { useTitle } from '../../components/useTitle.ts';
import guide from '../../../../docs/api.md?raw';

/**
 * The guide is this repository's own file, built into the console: its links to other files of the
 * repository lead nowhere here, so they show as their text, and links to the API reference stay.
 */
const marked = new Marked({
  renderer: {
    link({ href, tokens }) {
      const text = this.parser.parseInline(tokens);
      return /^https?:\/\//.test(href) ? `<a href="${href}" target="_blank" rel="noreferrer">${text}</a>` : `<span>${text}</span>`;
    },
    html() {
      return '';
    },
  },
});

/** The integrators' guide (docs/api.md): keys, the envelope, errors, paging, limits and webhooks. */
export default function ApiGuidePage() {
  const { t } = useLingui();
  useTitle(t`API guide`);
  const html = useMemo(() => marked.parse(guide, { async: false }), []);
  return (
    <Box mih="100vh" bg="#f5f7fa">
      <Group justify="space-between" px="lg" py="sm" bg="white" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
        <Box component={Link} to="/entrance" style={{ color: 'inherit', textDecoration: 'none' }}>
          <Brand />
        </Box>
        <LanguageSelect />
      </Group>
      <Container size={900} py="xl">
        <Stack gap="md">
          <Group gap="md">
            <Anchor component={Link} to="/docs/api" data-testid="guide-reference-link">
              <Trans>API reference</Trans>
            </Anchor>
          </Group>
          <Alert color="gray" variant="light">
            <Trans>This guide is written in English; the API reference and every message the API answers follow your language.</Trans>
          </Alert>
          <Paper withBorder radius="md" p="xl" bg="white">
            <Typography>
              <div data-testid="api-guide" dangerouslySetInnerHTML={{ __html: html }} />
            </Typography>
          </Paper>
        </Stack>
      </Container>
    </Box>
  );
}
