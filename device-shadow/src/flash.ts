import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * A file the terminal keeps beside its credentials (`<credentials>.<name>.json`), as a terminal
 * keeps state in flash across restarts; none when the agent has no credentials file.
 */
export function flashFile(credentialsFile: string | undefined, name: string): string | undefined {
  return credentialsFile ? `${credentialsFile.replace(/\.json$/, '')}.${name}.json` : undefined;
}

/** What the file holds; undefined when it is missing or unreadable (the terminal starts empty). */
export function readFlash<T>(file: string | undefined): T | undefined {
  if (!file || !existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Replaces the file whole (write, then rename), so a crash leaves the old one or the new one. */
export function saveFlash(file: string | undefined, value: unknown): void {
  if (!file) return;
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(value));
  renameSync(temp, file);
}
