import { Box, Group, Text } from '@mantine/core';
import { BRAND } from '../app/theme.ts';

/** The header's brand variant (chosen by a fixed index at build time). */
export function Brand() {
  return (
    <Group gap={8} wrap="nowrap">
      <Box
        aria-hidden
        style={{ background: BRAND.color, width: 30, height: 30, borderRadius: 6, color: '#fff', fontWeight: 700, fontSize: 13, display: 'flex', alignItems: 'center', justifyContent: 'center', flex: 'none' }}
      >
        {BRAND.mark}
      </Box>
      <Text fw={700} size="lg" style={{ whiteSpace: 'nowrap' }}>
        {BRAND.name}
      </Text>
    </Group>
  );
}
