import busboy from 'busboy';
import { PayloadTooLargeError, fieldError } from './errors.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  data: Buffer;
  /** True when the file was longer than the limit (data then holds only the first part). */
  truncated: boolean;
}

export interface Multipart {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** Parses a multipart/form-data body held in memory; files over `maxFileBytes` come back truncated. */
export function parseMultipart(contentType: string | undefined, body: Buffer, maxFileBytes: number): Promise<Multipart> {
  if (!contentType?.toLowerCase().startsWith('multipart/form-data')) return Promise.reject(fieldError('file', 'upload.notMultipart'));
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, limits: { fileSize: maxFileBytes, files: 5, fields: 20, fieldSize: 4096 } });
    } catch {
      reject(fieldError('file', 'upload.notMultipart'));
      return;
    }
    parser.on('field', (name, value) => {
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      let truncated = false;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => {
        truncated = true;
      });
      stream.on('close', () => files.push({ field, filename: info.filename ?? '', data: Buffer.concat(chunks), truncated }));
    });
    parser.on('filesLimit', () => reject(new PayloadTooLargeError()));
    parser.on('error', () => reject(fieldError('file', 'upload.notMultipart')));
    parser.on('close', () => resolve({ fields, files }));
    parser.end(body);
  });
}
