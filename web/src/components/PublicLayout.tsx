import type { ReactNode } from 'react';
import { Box, Container, Group, Paper, Title } from '@mantine/core';
import { Link } from 'react-router-dom';
import { Brand } from './Brand.tsx';
import { LanguageSelect } from './LanguageSelect.tsx';
import { useTitle } from './useTitle.ts';

/** The frame of the public screens: brand and language at the top, the form in a card. */
export function PublicLayout({ title, children, width = 420 }: { title: string; children: ReactNode; width?: number }) {
  useTitle(title);
  return (
    <Box mih="100vh" style={{ background: 'linear-gradient(160deg, #e7f0fb 0%, #f0f2f5 60%)' }}>
      <Group justify="space-between" px="lg" py="sm">
        <Box component={Link} to="/entrance" style={{ color: 'inherit', textDecoration: 'none' }}>
          <Brand />
        </Box>
        <LanguageSelect />
      </Group>
      <Container size={width} py={40}>
        <Paper withBorder shadow="sm" radius="md" p="xl">
          <Title order={2} size="h3" mb="lg">
            {title}
          </Title>
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
