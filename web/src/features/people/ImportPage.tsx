import { useEffect, useRef, useState, type ReactNode } from 'react';
import { Alert, Anchor, Badge, Button, FileButton, Group, Paper, Progress, Stack, Stepper, Table, Text } from '@mantine/core';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { formatNumber } from '../../app/format.ts';
import { storedLocale } from '../../app/locales.ts';
import { showFailure, useWrite } from '../../app/queries.ts';
import { RequestError } from '../../app/request.ts';
import { UploadError } from '../../app/upload.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { screens, type Kind } from './api.ts';
import { runImport, type ImportProgress, type PhotoReport, type WorkbookReport } from './importJob.ts';

const XLSX_MAX = 2 * 1024 * 1024;
const ZIP_MAX = 1024 * 1024 * 1024;

/** The two-step import (workbook at import/info, photo archive at import/avatar), run in the background with its progress shown. */
export function ImportPage({ kind, step }: { kind: Kind; step: 'info' | 'avatar' }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const paths = screens(kind);
  const [progress, setProgress] = useState<ImportProgress | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [workbook, setWorkbook] = useState<WorkbookReport | null>(null);
  const [photos, setPhotos] = useState<PhotoReport | null>(null);
  const left = useRef(false);
  useEffect(() => {
    left.current = false;
    return () => {
      left.current = true;
    };
  }, []);
  const template = `/file/Personnel_import_template_${storedLocale().startsWith('zh') ? 'ZH' : 'EN'}.xlsx`;
  const number = (n: number) => formatNumber(n);

  // The people lists show the imported people when next shown. Leaving the screen stops the reading, not the import.
  const importing = useWrite((file: File) => runImport(kind, step === 'info' ? 'info' : 'avatars', file, setProgress, () => left.current), {
    touches: ['people'],
    onSuccess: (job) => {
      if (!job) return;
      if (job.state === 'failed') setError(job.error ?? t`The import stopped; please try again`);
      else if (step === 'info') setWorkbook(job.report as WorkbookReport);
      else setPhotos(job.report as PhotoReport);
    },
    onError: (e) => {
      if (e instanceof RequestError) setError(e.issues[0]?.message ?? e.message);
      else if (e instanceof UploadError) setError(t`The file could not be uploaded; please try again`);
      else showFailure(e);
    },
  });

  const send = (file: File | null) => {
    if (!file) return;
    setError(null);
    setWorkbook(null);
    setPhotos(null);
    if (step === 'info') {
      if (!file.name.toLowerCase().endsWith('.xlsx')) return setError(t`Choose an .xlsx workbook`);
      if (file.size > XLSX_MAX) return setError(t`The workbook must be at most 2 MB`);
    } else {
      if (!file.name.toLowerCase().endsWith('.zip')) return setError(t`Choose a .zip archive`);
      if (file.size > ZIP_MAX) return setError(t`The archive must be at most 1 GB`);
    }
    setProgress({ phase: 'uploading', percent: 0 });
    importing.mutate(file, { onSettled: () => !left.current && setProgress(null) });
  };

  const statusBadge = (status: string) => {
    const label: Record<string, string> = { created: t`Created`, updated: t`Updated`, rejected: t`Rejected`, imported: t`Imported`, skipped: t`Skipped` };
    const color = status === 'rejected' || status === 'skipped' ? 'red' : 'teal';
    return (
      <Badge color={color} variant="light">
        {label[status] ?? status}
      </Badge>
    );
  };

  return (
    <ScreenPage>
      <Paper withBorder radius="md" p="lg">
        <Stack>
          <Stepper active={step === 'info' ? 0 : 1} size="sm">
            <Stepper.Step label={t`Personnel information`} description={t`Excel workbook`} />
            <Stepper.Step label={t`Photos`} description={t`Zip archive`} />
          </Stepper>
          {step === 'info' ? (
            <Text size="sm" c="dimmed">
              <Trans>
                Fill in the template, one person per row, and upload it as .xlsx (at most 2 MB). A row whose personnel ID exists updates that person.
              </Trans>{' '}
              <Anchor href={template} download>
                <IconDownload size={14} /> <Trans>Download the template</Trans>
              </Anchor>
            </Text>
          ) : (
            <Text size="sm" c="dimmed">
              <Trans>
                Upload a .zip with a folder named photo; name each photo after the personnel ID (for example photo/E0001.jpg), at most 500 KB each. Other files
                are skipped.
              </Trans>
            </Text>
          )}
          <Group>
            <FileButton onChange={send} accept={step === 'info' ? '.xlsx' : '.zip'}>
              {(props) => (
                <Button {...props} leftSection={<IconUpload size={16} />} loading={!!progress} data-testid="import-file">
                  {step === 'info' ? <Trans>Upload workbook</Trans> : <Trans>Upload photos</Trans>}
                </Button>
              )}
            </FileButton>
            {step === 'info' ? (
              <Button variant="default" onClick={() => navigate(paths.importAvatar)}>
                <Trans>Next: photos</Trans>
              </Button>
            ) : (
              <Button variant="default" onClick={() => navigate(paths.list)}>
                <Trans>Done</Trans>
              </Button>
            )}
          </Group>
          {progress && (
            <Stack gap={4} data-testid="import-progress">
              <Text size="sm">
                {progress.phase === 'uploading' ? (
                  <Trans>Uploading the file… {progress.percent}%</Trans>
                ) : progress.total > 0 ? (
                  <Trans>
                    Importing… {number(progress.processed)} of {number(progress.total)}
                  </Trans>
                ) : (
                  <Trans>Reading the file…</Trans>
                )}
              </Text>
              <Progress
                value={progress.phase === 'uploading' ? progress.percent : progress.total ? (progress.processed / progress.total) * 100 : 0}
                animated={progress.phase === 'importing' && progress.total === 0}
                striped={progress.phase === 'importing' && progress.total === 0}
              />
            </Stack>
          )}
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          {workbook && (
            <Stack gap="xs" data-testid="import-report">
              <Text fw={600}>
                <Trans>
                  {number(workbook.created)} created, {number(workbook.updated)} updated, {number(workbook.rejected)} rejected
                </Trans>
              </Text>
              {workbook.rejected === 0 && (
                <Text size="sm" c="dimmed">
                  <Trans>Every row was imported.</Trans>
                </Text>
              )}
              <ReportTable
                listed={workbook.rejected > workbook.rows.length && <Trans>The first {number(workbook.rows.length)} rejected rows are listed.</Trans>}
                heads={[t`Row`, t`Personnel ID`, t`Result`, t`Reason`]}
                rows={[...workbook.rows]
                  .sort((a, b) => a.row - b.row)
                  .map((r) => ({ key: r.row, cells: [number(r.row), r.personId, statusBadge(r.status), r.reasons?.join('; ')] }))}
              />
            </Stack>
          )}
          {photos && (
            <Stack gap="xs" data-testid="import-report">
              <Text fw={600}>
                <Trans>
                  {number(photos.imported)} imported, {number(photos.skipped)} skipped
                </Trans>
              </Text>
              <ReportTable
                listed={photos.skipped > photos.entries.length && <Trans>The first {number(photos.entries.length)} skipped files are listed.</Trans>}
                heads={[t`File`, t`Result`, t`Reason`]}
                rows={[...photos.entries]
                  .sort((a, b) => a.name.localeCompare(b.name))
                  .map((e) => ({ key: e.name, cells: [e.name, statusBadge(e.status), e.reason] }))}
              />
            </Stack>
          )}
        </Stack>
      </Paper>
    </ScreenPage>
  );
}

/**
 * The entries a report lists (rejected rows, skipped files): a head, then a line each; hidden while
 * there are none. `listed` says when the report lists only the first ones.
 */
function ReportTable({ listed, heads, rows }: { listed: ReactNode; heads: string[]; rows: { key: string | number; cells: ReactNode[] }[] }) {
  return (
    <>
      {listed && (
        <Text size="sm" c="dimmed">
          {listed}
        </Text>
      )}
      <Table striped hidden={rows.length === 0}>
        <Table.Thead>
          <Table.Tr>
            {heads.map((head) => (
              <Table.Th key={head}>{head}</Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row) => (
            <Table.Tr key={row.key}>
              {row.cells.map((cell, i) => (
                <Table.Td key={i}>{cell}</Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </>
  );
}
