import { env } from './env.ts';

/**
 * Links into the console that mails carry (invitations, password resets). They are built from the
 * configured address of the console, `CONSOLE_URL` (the CloudFront distribution on AWS, the host's
 * own URL on one machine), never from a request's `Origin` or `Host`, which the caller chooses.
 */
export function consoleLink(path: string, query: Record<string, string> = {}): string {
  const base = env('CONSOLE_URL')?.trim();
  if (!base) throw new Error('CONSOLE_URL is not set: links in mails need the console’s address');
  const url = new URL(`${base.replace(/\/*$/, '/')}${path.replace(/^\/+/, '')}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  return url.toString();
}
