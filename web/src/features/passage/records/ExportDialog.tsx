import { useEffect, useRef, useState } from 'react';
import { Alert, Button, Group, Modal, Progress, Stack, Text } from '@mantine/core';
import { IconDownload } from '@tabler/icons-react';
import { plural } from '@lingui/core/macro';
import { Trans, useLingui } from '@lingui/react/macro';
import { formatNumber } from '../../../app/format.ts';
import { RequestError } from '../../../app/request.ts';
import { download, readExport, startExport } from './api.ts';

const POLL_MS = 1000;

type Progress =
  | { phase: 'starting' }
  | { phase: 'running'; done: number; total: number | null }
  | { phase: 'done'; done: number; url: string; truncated: boolean }
  | { phase: 'failed'; message: string | null };

/**
 * Exports the filtered records as a background job: started when the dialog opens, read once a
 * second with its progress, and handed to the browser's downloads when done. Closing the
 * dialog stops following the job.
 */
export function ExportDialog({
  path,
  title,
  body,
  opened,
  onClose,
}: {
  /** The list whose filtered rows are exported (`<path>/exports`). */
  path: string;
  title: string;
  body: Record<string, string | undefined>;
  opened: boolean;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const [progress, setProgress] = useState<Progress>({ phase: 'starting' });
  /** Each try of the export: a new one starts another job. */
  const [attempt, setAttempt] = useState(0);
  const run = useRef(0);
  // The filters at the moment the export was asked for.
  const asked = useRef(body);
  asked.current = body;

  useEffect(() => {
    if (!opened) return;
    const current = ++run.current;
    const live = () => run.current === current;
    setProgress({ phase: 'starting' });
    void (async () => {
      try {
        const { jobKey } = await startExport(path, asked.current);
        while (live()) {
          const job = await readExport(path, jobKey);
          if (!live()) return;
          if (job.state === 'done' && job.url) {
            setProgress({ phase: 'done', done: job.done, url: job.url, truncated: !!job.truncated });
            download(job.url);
            return;
          }
          if (job.state === 'failed' || job.state === 'done') {
            setProgress({ phase: 'failed', message: job.error ?? null });
            return;
          }
          setProgress({ phase: 'running', done: job.done, total: job.total ?? null });
          await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        }
      } catch (error) {
        if (live()) setProgress({ phase: 'failed', message: error instanceof RequestError ? error.message : null });
      }
    })();
    return () => {
      run.current++;
    };
  }, [opened, path, attempt]);

  const done = progress.phase === 'running' ? formatNumber(progress.done) : '';
  const percent = progress.phase === 'done' ? 100 : progress.phase === 'running' && progress.total ? Math.min(100, (progress.done / progress.total) * 100) : 0;

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={<Text fw={600}>{title}</Text>}
      size={500}
      closeButtonProps={{ 'aria-label': t`Close` }}
      data-testid="record-export"
    >
      <Stack gap="md">
        {progress.phase === 'failed' ? (
          <Alert color="red" variant="light" data-testid="export-failed">
            <Text size="sm">{progress.message ?? t`The export failed; try again later.`}</Text>
          </Alert>
        ) : (
          <>
            <Progress
              value={progress.phase === 'starting' || (progress.phase === 'running' && !progress.total) ? 100 : percent}
              striped={progress.phase !== 'done'}
              animated={progress.phase !== 'done'}
              color={progress.phase === 'done' ? 'teal' : undefined}
              aria-label={t`Export progress`}
            />
            <Text size="sm" data-testid="export-progress" data-phase={progress.phase}>
              {progress.phase === 'starting' && <Trans>Preparing the export…</Trans>}
              {progress.phase === 'running' &&
                (progress.total !== null
                  ? plural(progress.total, { one: `${done} of # record written`, other: `${done} of # records written` })
                  : plural(progress.done, { one: '# record written', other: '# records written' }))}
              {progress.phase === 'done' &&
                plural(progress.done, { one: '# record exported; the download has started.', other: '# records exported; the download has started.' })}
            </Text>
            {progress.phase === 'done' && progress.truncated && (
              <Alert color="orange" variant="light" data-testid="export-truncated">
                <Text size="sm">
                  <Trans>These days hold more records than one workbook takes; narrow the days or filters to export the rest.</Trans>
                </Text>
              </Alert>
            )}
          </>
        )}
        <Group justify="flex-end" gap="xs">
          {progress.phase === 'done' && (
            <Button leftSection={<IconDownload size={16} />} component="a" href={progress.url} rel="noopener" variant="light" data-testid="export-download">
              <Trans>Download again</Trans>
            </Button>
          )}
          {progress.phase === 'failed' && (
            <Button variant="light" onClick={() => setAttempt((n) => n + 1)} data-testid="export-retry">
              <Trans>Try again</Trans>
            </Button>
          )}
          <Button variant="default" onClick={onClose} data-testid="export-close">
            {progress.phase === 'running' || progress.phase === 'starting' ? <Trans>Cancel</Trans> : <Trans>Close</Trans>}
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
