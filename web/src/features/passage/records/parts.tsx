import { useEffect, useRef, useState } from 'react';
import { Badge, Center, Group, Image, Stack, Text } from '@mantine/core';
import { IconAlertTriangle, IconPhotoOff, IconTemperature } from '@tabler/icons-react';
import { formatTemperature } from '../../../app/format.ts';
import type { PassRecordItem } from './api.ts';
import { STATE_COLOR, TYPE_COLOR, type RecordLabels } from './labels.ts';

/** A photo of a record at a fixed size, or a quiet placeholder when there is none. */
/**
 * How often a capture announced live is asked for again: a second apart, then two, and so on, 21 s in all.
 * The terminal uploads it after the record is stored, which on a slow link or a busy host takes seconds.
 */
export const CAPTURE_RETRIES = 6;

export function RecordPhoto({
  src,
  size,
  alt,
  empty,
  testId,
  retries = 0,
}: {
  src: string | null;
  size: number | { w: number | string; h: number };
  alt: string;
  empty?: string;
  testId?: string;
  /** A capture announced live may not have arrived yet: it is asked for again this many times, a second apart and then more. */
  retries?: number;
}) {
  const [attempt, setAttempt] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const w = typeof size === 'number' ? size : size.w;
  const h = typeof size === 'number' ? size : size.h;
  if (!src)
    return (
      <Center w={w} h={h} bg="gray.1" c="gray.5" style={{ borderRadius: 'var(--mantine-radius-sm)', flex: 'none' }} data-testid={testId && `${testId}-none`}>
        <Stack align="center" gap={4}>
          <IconPhotoOff size={Math.min(h / 2.5, 48)} stroke={1.5} aria-hidden />
          {empty && (
            <Text size="sm" c="dimmed">
              {empty}
            </Text>
          )}
        </Stack>
      </Center>
    );
  return (
    <Image
      key={attempt}
      src={src}
      alt={alt}
      onError={() => {
        if (attempt < retries) timer.current = setTimeout(() => setAttempt(attempt + 1), 1000 * (attempt + 1));
      }}
      w={w}
      h={h}
      fit={typeof size === 'number' ? 'cover' : 'contain'}
      radius="sm"
      bg="gray.1"
      style={{ flex: 'none' }}
      loading="lazy"
      data-testid={testId}
    />
  );
}

/** Degrees in the reader's language; a fever in red. */
export function Temperature({ record }: { record: PassRecordItem }) {
  if (record.temperature === null)
    return (
      <Text span size="sm" c="dimmed">
        —
      </Text>
    );
  return (
    <Text
      span
      size="sm"
      c={record.fever ? 'red.7' : undefined}
      fw={record.fever ? 700 : undefined}
      data-fever={record.fever || undefined}
      data-testid="record-temperature"
    >
      {record.fever ? (
        <Group component="span" gap={2} wrap="nowrap" display="inline-flex">
          <IconTemperature size={14} aria-hidden />
          {formatTemperature(record.temperature)}
        </Group>
      ) : (
        formatTemperature(record.temperature)
      )}
    </Text>
  );
}

export function TypeBadge({ record, labels }: { record: PassRecordItem; labels: RecordLabels }) {
  return (
    <Badge size="sm" variant="light" color={TYPE_COLOR[record.type]} miw="max-content" data-testid="record-type">
      {labels.type[record.type]}
    </Badge>
  );
}

/**
 * The pass state, with why the terminal refused it when it said; a person on the blacklist who was
 * let through all the same is marked beside it.
 */
export function StateBadge({ record, labels }: { record: PassRecordItem; labels: RecordLabels }) {
  const badge = (
    <Badge size="sm" variant="dot" color={STATE_COLOR[record.passState]} miw="max-content">
      {labels.passState[record.passState]}
    </Badge>
  );
  const reason = record.refusedFor && record.refusedFor !== 'unknown' ? record.refusedFor : null;
  const state = reason ? (
    <Group gap={4} wrap="nowrap">
      {badge}
      <Text span size="xs" c="red.8" style={{ whiteSpace: 'nowrap' }} data-testid="record-refused-for" data-reason={reason}>
        {labels.refusedFor[reason]}
      </Text>
    </Group>
  ) : (
    badge
  );
  if (!record.violation) return state;
  return (
    <Group gap={4} wrap="nowrap">
      {state}
      <Badge size="sm" variant="filled" color="red" miw="max-content" leftSection={<IconAlertTriangle size={12} aria-hidden />} data-testid="record-violation">
        {labels.violation}
      </Badge>
    </Group>
  );
}

export const personName = (record: PassRecordItem, labels: RecordLabels): string =>
  record.name ?? (record.type === 'stranger' ? labels.type.stranger : labels.unnamed);
