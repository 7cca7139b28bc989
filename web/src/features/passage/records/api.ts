import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { PassRecordItem, PassRecordPage } from '@passcloud/functions/contract/passRecords';
import { api } from '../../../app/api.ts';
import type { RecordScreen } from './filters.ts';
import { pickDevices } from '../../../app/pickers.ts';

export type { PassRecordItem, PassRecordPage };

export const recordsPath = (screen: RecordScreen): string => (screen === 'blacklist' ? '/v1/blacklistRecords' : '/v1/passRecords');

/** One record by its key (`GET .../{recordKey}`), as an alert mail links to it. */
export const loadRecord = (screen: RecordScreen, recordKey: string) => api.get<PassRecordItem>(`${recordsPath(screen)}/${encodeURIComponent(recordKey)}`);

export interface DeviceOption {
  value: string;
  label: string;
}

/** Terminals for the device filter: a few pages of the device picker (open to the record screens' codes). */
export async function loadDeviceOptions(): Promise<DeviceOption[]> {
  const devices = await pickDevices(5, { silent: true, quiet: true });
  return devices.map((d) => ({ value: d.deviceKey, label: d.name })).sort((a, b) => a.label.localeCompare(b.label));
}

/**
 * The device filter's choices: the terminals of the device picker, and the devices of the rows read
 * that it does not offer. The picker needs its own right; without it, the rows' devices are offered.
 */
export function useDeviceOptions(rows: readonly { deviceKey: string; deviceName: string }[] | undefined): DeviceOption[] {
  const devices = useQuery({ queryKey: ['pickers', 'devices', 'options'], queryFn: loadDeviceOptions }).data;
  return useMemo(() => {
    const known = new Map((devices ?? []).map((d) => [d.value, d]));
    for (const row of rows ?? []) if (!known.has(row.deviceKey)) known.set(row.deviceKey, { value: row.deviceKey, label: row.deviceName });
    return [...known.values()];
  }, [devices, rows]);
}

// Export jobs

/** `GET .../exports/{jobKey}`: records written so far, of how many when known; a short-lived link once done. */
export interface ExportJob {
  state: 'queued' | 'running' | 'done' | 'failed';
  done: number;
  total?: number | null;
  url?: string | null;
  /** The range held more records than one workbook takes. */
  truncated?: boolean;
  error?: string | null;
}

/** Starts the export of a list's filtered rows (`<list path>/exports`). */
export const startExport = (listPath: string, body: Record<string, string | undefined>) =>
  api.post<{ jobKey: string }>(`${listPath}/exports`, body, { silent: true });

export const readExport = (listPath: string, jobKey: string) =>
  api.get<ExportJob>(`${listPath}/exports/${encodeURIComponent(jobKey)}`, { silent: true, quiet: true });

/** Hands a finished export to the browser's downloads. */
export function download(url: string): void {
  const link = document.createElement('a');
  link.href = url;
  link.rel = 'noopener';
  link.download = '';
  document.body.append(link);
  link.click();
  link.remove();
}
