import type { ReactNode } from 'react';
import { Avatar, Group, Text } from '@mantine/core';
import { Link } from 'react-router-dom';
import { Truncated } from './Truncated.tsx';

/** A person in a list: the face photo (or the name's first letter) and the name, cut with its full text on hover; a link when `to` is given. */
export function PersonName({ name, avatar, to, maw = 180, size = 32 }: { name: string; avatar: string | null | undefined; to?: string; maw?: number; size?: number }) {
  let text: ReactNode = <Truncated text={name} maw={maw} />;
  if (to) {
    text = (
      <Text size="sm" component={Link} to={to} c="blue.7" td="none" truncate="end" maw={maw} title={name}>
        {name}
      </Text>
    );
  }
  return (
    <Group gap="xs" wrap="nowrap">
      <Avatar src={avatar} size={size} radius="xl" alt="">
        {name.slice(0, 1)}
      </Avatar>
      {text}
    </Group>
  );
}
