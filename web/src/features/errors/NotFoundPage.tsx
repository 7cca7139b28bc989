import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { Trans, useLingui } from '@lingui/react/macro';
import { Link } from 'react-router-dom';
import { useTitle } from '../../components/useTitle.ts';

export default function NotFoundPage() {
  const { t } = useLingui();
  useTitle(t`Page not found`);
  return (
    <Center mih="100vh" bg="#f0f2f5">
      <Stack align="center" gap="md" p="xl">
        <Text fz={96} fw={800} c="blue.6" lh={1}>
          404
        </Text>
        <Title order={2}>
          <Trans>Page not found</Trans>
        </Title>
        <Text c="dimmed" ta="center" maw={420}>
          <Trans>The page does not exist, or your account has no access to it.</Trans>
        </Text>
        <Button component={Link} to="/">
          <Trans>Back to home</Trans>
        </Button>
      </Stack>
    </Center>
  );
}
