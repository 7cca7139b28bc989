import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Loader, Modal, Stack, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatBytes, formatTime } from '../../app/format.ts';
import { RequestError } from '../../app/request.ts';
import { download } from '../passage/records/api.ts';
import { recordingLink, type CallItem, type RecordingLink } from './api.ts';
import { formatDuration } from './parts.tsx';

const BARS = 160;

/** The loudest sample of each of `bars` equal slices of the first channel, 0 to 1. */
function peaksOf(buffer: AudioBuffer, bars = BARS): number[] {
  const data = buffer.getChannelData(0);
  const step = Math.max(1, Math.floor(data.length / bars));
  const peaks: number[] = [];
  for (let i = 0; i < bars; i++) {
    let peak = 0;
    for (let j = i * step; j < Math.min(data.length, (i + 1) * step); j++) peak = Math.max(peak, Math.abs(data[j]!));
    peaks.push(peak);
  }
  const loudest = Math.max(...peaks, 0.001);
  return peaks.map((p) => p / loudest);
}

function Waveform({ peaks, progress, onSeek }: { peaks: number[]; progress: number; onSeek: (fraction: number) => void }) {
  const { t } = useLingui();
  return (
    <svg
      viewBox={`0 0 ${peaks.length * 3} 60`}
      width="100%"
      height={60}
      preserveAspectRatio="none"
      role="slider"
      aria-label={t`Position`}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(progress * 100)}
      tabIndex={0}
      style={{ cursor: 'pointer', display: 'block' }}
      onClick={(e) => {
        const box = e.currentTarget.getBoundingClientRect();
        onSeek(Math.min(1, Math.max(0, (e.clientX - box.left) / box.width)));
      }}
      onKeyDown={(e) => {
        if (e.key === 'ArrowRight') onSeek(Math.min(1, progress + 0.05));
        if (e.key === 'ArrowLeft') onSeek(Math.max(0, progress - 0.05));
      }}
      data-testid="recording-waveform"
    >
      {peaks.map((peak, i) => {
        const height = Math.max(2, peak * 56);
        return (
          <rect
            key={i}
            x={i * 3}
            y={(60 - height) / 2}
            width={2}
            height={height}
            rx={1}
            fill={i / peaks.length < progress ? 'var(--mantine-color-blue-6)' : 'var(--mantine-color-gray-4)'}
          />
        );
      })}
    </svg>
  );
}

/**
 * Plays a call's recording in the browser from a short-lived link: the waveform (decoded in the
 * browser) shows the progress and seeks, the audio element plays at once (the click that opened
 * the player is the one that plays it); the recording can be saved.
 */
export function RecordingPlayer({ call, onClose }: { call: CallItem | null; onClose: () => void }) {
  const { t } = useLingui();
  const [link, setLink] = useState<RecordingLink | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [peaks, setPeaks] = useState<number[] | null>(null);
  const [position, setPosition] = useState(0);
  const [length, setLength] = useState(0);
  const audio = useRef<HTMLAudioElement>(null);

  useEffect(() => {
    setLink(null);
    setProblem(null);
    setPeaks(null);
    setPosition(0);
    setLength(0);
    if (!call) return;
    let live = true;
    recordingLink(call.callKey).then(
      async (found) => {
        if (!live) return;
        setLink(found);
        try {
          const bytes = await (await fetch(found.url)).arrayBuffer();
          const context = new AudioContext();
          const decoded = await context.decodeAudioData(bytes);
          void context.close();
          if (live) setPeaks(peaksOf(decoded));
        } catch {
          // The waveform is a help; the player works without it.
          if (live) setPeaks([]);
        }
      },
      (error: unknown) => live && setProblem(error instanceof RequestError ? error.message : t`The recording could not be loaded`),
    );
    return () => {
      live = false;
    };
  }, [call, t]);

  // The click on Play is the one the listener gives: the recording starts as soon as its link is here.
  useEffect(() => {
    const element = audio.current;
    if (link && element) element.play().catch(() => undefined);
  }, [link]);

  const save = () => {
    if (!call) return;
    recordingLink(call.callKey, true).then(
      (found) => download(found.url),
      (error: unknown) => setProblem(error instanceof RequestError ? error.message : t`The recording could not be loaded`),
    );
  };
  const seek = (fraction: number) => {
    const element = audio.current;
    if (element && Number.isFinite(element.duration)) element.currentTime = fraction * element.duration;
  };

  const callTime = call ? formatTime(call.callTime) : '';
  return (
    <Modal
      opened={!!call}
      onClose={onClose}
      title={<Text fw={600}>{t`Call recording`}</Text>}
      size="lg"
      closeButtonProps={{ 'aria-label': t`Close` }}
      data-testid="recording-player"
    >
      {call && (
        <Stack gap="sm">
          <Text size="sm" c="dimmed">
            <Trans>
              {call.calling.name ?? call.calling.number ?? '—'} to {call.called.name ?? call.called.number ?? '—'}, {callTime}
            </Trans>
          </Text>
          {problem && (
            <Alert color="orange" data-testid="recording-problem">
              {problem}
            </Alert>
          )}
          {!problem && !link && <Loader size="sm" />}
          {link && (
            <>
              {peaks === null ? <Loader size="xs" /> : peaks.length > 0 && <Waveform peaks={peaks} progress={length ? position / length : 0} onSeek={seek} />}
              <audio
                ref={audio}
                src={link.url}
                controls
                preload="auto"
                style={{ width: '100%' }}
                onTimeUpdate={(e) => setPosition(e.currentTarget.currentTime)}
                onLoadedMetadata={(e) => setLength(Number.isFinite(e.currentTarget.duration) ? e.currentTarget.duration : (link.duration ?? 0))}
                onEnded={(e) => setPosition(e.currentTarget.duration)}
                data-testid="recording-audio"
              />
              <Group justify="space-between">
                <Text size="sm" data-testid="recording-time">
                  {formatDuration(position)} / {formatDuration(length || link.duration || 0)}
                </Text>
                <Group gap="xs">
                  <Text size="xs" c="dimmed">
                    {formatBytes(link.size)}
                  </Text>
                  <Button size="xs" variant="light" leftSection={<IconDownload size={14} />} onClick={save} data-testid="recording-download">
                    <Trans>Download</Trans>
                  </Button>
                </Group>
              </Group>
            </>
          )}
        </Stack>
      )}
    </Modal>
  );
}
