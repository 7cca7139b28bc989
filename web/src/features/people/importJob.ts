import { api } from '../../app/api.ts';
import { putFile, type UploadTarget } from '../../app/upload.ts';
import { basePath, type Kind } from './api.ts';

/**
 * A background import as the console runs it: make the job, put the file straight into storage
 * through the job's upload link (with upload progress), start it, and read it once a second
 * until it is done, so no request waits on a long import.
 */

export interface WorkbookReport {
  created: number;
  updated: number;
  rejected: number;
  /** The rejected rows (the first 1,000). */
  rows: { row: number; personId: string; status: 'rejected'; reasons?: string[] }[];
}
export interface PhotoReport {
  imported: number;
  skipped: number;
  /** The skipped entries (the first 1,000). */
  entries: { name: string; status: 'skipped'; reason?: string }[];
}

interface Job {
  jobKey: string;
  state: 'uploading' | 'queued' | 'running' | 'done' | 'failed';
  processed: number;
  total: number;
  report: WorkbookReport | PhotoReport | null;
  error: string | null;
}
interface NewJob extends Job {
  upload: UploadTarget;
}

export type ImportProgress = { phase: 'uploading'; percent: number } | { phase: 'importing'; processed: number; total: number };

const POLL_MS = 1000;

/** Runs the import to its end and answers the finished job; `cancelled` stops the reading (the import goes on). */
export async function runImport(kind: Kind, step: 'info' | 'avatars', file: File, onProgress: (p: ImportProgress) => void, cancelled: () => boolean): Promise<Job | undefined> {
  const jobs = `${basePath(kind)}/imports/jobs`;
  const job = await api.post<NewJob>(jobs, { step, filename: file.name, size: file.size }, { silent: true });
  onProgress({ phase: 'uploading', percent: 0 });
  await putFile(job.upload, file, (percent) => onProgress({ phase: 'uploading', percent }));
  await api.post<Job>(`${jobs}/${job.jobKey}/start`, undefined, { silent: true });
  onProgress({ phase: 'importing', processed: 0, total: 0 });
  while (!cancelled()) {
    await new Promise((r) => setTimeout(r, POLL_MS));
    const current = await api.get<Job>(`${jobs}/${job.jobKey}`, { silent: true, quiet: true });
    if (current.state === 'done' || current.state === 'failed') return current;
    onProgress({ phase: 'importing', processed: current.processed, total: current.total });
  }
  return undefined;
}
