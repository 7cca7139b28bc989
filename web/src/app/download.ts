import { getToken } from './session.ts';
import { storedLocale } from './locales.ts';

/**
 * Downloads a file the API answers (an export), in the reader's language, under the name the
 * answer gives; a refusal throws its message.
 */
export async function downloadFile(path: string, query: Record<string, string | undefined>, fallbackName = 'export.xlsx'): Promise<void> {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1]));
  const res = await fetch(`${path}?${params}`, { headers: { authorization: `Bearer ${getToken() ?? ''}`, 'accept-language': storedLocale() } });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { message?: string } | null;
    throw new Error(body?.message ?? String(res.status));
  }
  const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? fallbackName;
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  URL.revokeObjectURL(url);
}
