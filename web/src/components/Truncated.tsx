import { Text } from '@mantine/core';

/** Free text cut to one line with an ellipsis at `maw` pixels; the whole text shows on hover. */
export function Truncated({ text, maw }: { text: string | null | undefined; maw: number }) {
  if (!text) return null;
  return (
    <Text span inherit truncate="end" display="block" maw={maw} title={text}>
      {text}
    </Text>
  );
}
