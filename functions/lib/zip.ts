import type yauzl from 'yauzl';

export interface ZipEntry {
  name: string;
  compressedSize: number;
  uncompressedSize: number;
  isLink: boolean;
  /** Reads the entry, refusing more than `maxBytes` (declared sizes are checked by yauzl too). */
  read(maxBytes: number): Promise<Buffer>;
}

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

/**
 * Lists an archive (in memory, or a file on disk) from its central directory, without unpacking
 * anything. Entry names are decoded here, not trusted: the caller judges them.
 */
export async function listZip(source: Buffer | string): Promise<{ entries: ZipEntry[]; close(): void }> {
  // yauzl is loaded by the first archive read: only the people import reads one.
  const { default: yauzl } = await import('yauzl');
  const options = { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: false };
  return new Promise((resolve, reject) => {
    const opened = (error: Error | null, zip?: yauzl.ZipFile) => {
      if (error || !zip) return reject(error ?? new Error('unreadable archive'));
      const entries: ZipEntry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        const raw = entry.fileName as unknown as Buffer;
        // General-purpose flag bit 11 marks UTF-8 names; older tools write CP437, read here as latin1.
        const name = raw.toString(entry.generalPurposeBitFlag & 0x800 ? 'utf8' : 'latin1');
        entries.push({
          name,
          compressedSize: entry.compressedSize,
          uncompressedSize: entry.uncompressedSize,
          isLink: ((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK,
          read: (maxBytes) =>
            new Promise<Buffer>((done, fail) => {
              if (entry.uncompressedSize > maxBytes) return fail(new Error('entry too large'));
              zip.openReadStream(entry, (streamError, stream) => {
                if (streamError || !stream) return fail(streamError ?? new Error('unreadable entry'));
                const chunks: Buffer[] = [];
                let size = 0;
                stream.on('data', (chunk: Buffer) => {
                  size += chunk.length;
                  if (size > maxBytes) stream.destroy(new Error('entry too large'));
                  else chunks.push(chunk);
                });
                stream.on('error', fail);
                stream.on('end', () => done(Buffer.concat(chunks)));
              });
            }),
        });
        zip.readEntry();
      });
      zip.on('end', () => resolve({ entries, close: () => zip.close() }));
      zip.on('error', reject);
      zip.readEntry();
    };
    if (typeof source === 'string') yauzl.open(source, options, opened);
    else yauzl.fromBuffer(source, options, opened);
  });
}

/** Every ZIP (and XLSX, APK) starts with a local file header or, when empty, an end record. */
export const isZip = (bytes: Buffer): boolean => bytes.length >= 4 && (bytes.readUInt32LE(0) === 0x04034b50 || bytes.readUInt32LE(0) === 0x06054b50);
