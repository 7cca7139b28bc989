import { useState } from 'react';
import { Alert, Anchor, Badge, Button, FileButton, Group, Paper, Stack, Stepper, Table, Text } from '@mantine/core';
import { IconDownload, IconUpload } from '@tabler/icons-react';
import { Trans, useLingui } from '@lingui/react/macro';
import { useNavigate } from 'react-router-dom';
import { storedLocale } from '../../app/locales.ts';
import { RequestError } from '../../app/request.ts';
import { ScreenPage } from '../../components/ScreenPage.tsx';
import { basePath, screens, uploadForm, type Kind } from './api.ts';

interface WorkbookResult {
  created: number;
  updated: number;
  rejected: number;
  rows: { row: number; personId: string; status: 'created' | 'updated' | 'rejected'; reasons?: string[] }[];
}
interface PhotoResult {
  imported: number;
  skipped: number;
  entries: { name: string; status: 'imported' | 'skipped'; reason?: string }[];
}

const XLSX_MAX = 2 * 1024 * 1024;

/** The two-step import: the workbook (step 1, import/info), then the photo archive (step 2, import/avatar). */
export function ImportPage({ kind, step }: { kind: Kind; step: 'info' | 'avatar' }) {
  const { t } = useLingui();
  const navigate = useNavigate();
  const paths = screens(kind);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [workbook, setWorkbook] = useState<WorkbookResult | null>(null);
  const [photos, setPhotos] = useState<PhotoResult | null>(null);
  const template = `/file/Personnel_import_template_${storedLocale().startsWith('zh') ? 'ZH' : 'EN'}.xlsx`;

  const send = async (file: File | null) => {
    if (!file) return;
    setError(null);
    if (step === 'info') {
      if (!file.name.toLowerCase().endsWith('.xlsx')) return setError(t`Choose an .xlsx workbook`);
      if (file.size > XLSX_MAX) return setError(t`The workbook must be at most 2 MB`);
    } else if (!file.name.toLowerCase().endsWith('.zip')) {
      return setError(t`Choose a .zip archive`);
    }
    setBusy(true);
    try {
      const path = `${basePath(kind)}/imports${step === 'avatar' ? '/avatars' : ''}`;
      const result = await uploadForm(path, file);
      if (step === 'info') setWorkbook(result as WorkbookResult);
      else setPhotos(result as PhotoResult);
    } catch (e) {
      setError(e instanceof RequestError ? (e.issues[0]?.message ?? e.message) : t`The file could not be sent`);
    } finally {
      setBusy(false);
    }
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
              <Trans>Upload a .zip with a folder named photo; name each photo after the personnel ID (for example photo/E0001.jpg), at most 500 KB each. Other files are skipped.</Trans>
            </Text>
          )}
          <Group>
            <FileButton onChange={(f) => void send(f)} accept={step === 'info' ? '.xlsx' : '.zip'}>
              {(props) => (
                <Button {...props} leftSection={<IconUpload size={16} />} loading={busy} data-testid="import-file">
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
          {error && (
            <Alert color="red" role="alert">
              {error}
            </Alert>
          )}
          {workbook && (
            <Stack gap="xs" data-testid="import-report">
              <Text fw={600}>
                <Trans>
                  {workbook.created} created, {workbook.updated} updated, {workbook.rejected} rejected
                </Trans>
              </Text>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t`Row`}</Table.Th>
                    <Table.Th>{t`Personnel ID`}</Table.Th>
                    <Table.Th>{t`Result`}</Table.Th>
                    <Table.Th>{t`Reason`}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {[...workbook.rows]
                    .sort((a, b) => Number(b.status === 'rejected') - Number(a.status === 'rejected') || a.row - b.row)
                    .map((r) => (
                      <Table.Tr key={r.row}>
                        <Table.Td>{r.row}</Table.Td>
                        <Table.Td>{r.personId}</Table.Td>
                        <Table.Td>{statusBadge(r.status)}</Table.Td>
                        <Table.Td>{r.reasons?.join('; ')}</Table.Td>
                      </Table.Tr>
                    ))}
                </Table.Tbody>
              </Table>
            </Stack>
          )}
          {photos && (
            <Stack gap="xs" data-testid="import-report">
              <Text fw={600}>
                <Trans>
                  {photos.imported} imported, {photos.skipped} skipped
                </Trans>
              </Text>
              <Table striped>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>{t`File`}</Table.Th>
                    <Table.Th>{t`Result`}</Table.Th>
                    <Table.Th>{t`Reason`}</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {[...photos.entries]
                    .sort((a, b) => Number(b.status === 'skipped') - Number(a.status === 'skipped'))
                    .map((e) => (
                      <Table.Tr key={e.name}>
                        <Table.Td>{e.name}</Table.Td>
                        <Table.Td>{statusBadge(e.status)}</Table.Td>
                        <Table.Td>{e.reason}</Table.Td>
                      </Table.Tr>
                    ))}
                </Table.Tbody>
              </Table>
            </Stack>
          )}
        </Stack>
      </Paper>
    </ScreenPage>
  );
}
