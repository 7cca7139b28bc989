import { getToken } from './session.ts';
import { storedLocale } from './locales.ts';
import { askPassword } from './api.ts';
import { CONFIRM_PASSWORD_HEADER } from './request.ts';

/**
 * Downloads a file the API answers (an export), in the reader's language, under the name the
 * answer gives; a refusal throws its message.
 */
export async function downloadFile(path: string, query: Record<string, string | undefined>, fallbackName = 'export.xlsx'): Promise<void> {
  const params = new URLSearchParams(Object.entries(query).filter((e): e is [string, string] => !!e[1]));
  let confirmation: string | null = null;
  let res: Response;
  for (;;) {
    const headers: Record<string, string> = { authorization: `Bearer ${getToken() ?? ''}`, 'accept-language': storedLocale() };
    if (confirmation) headers[CONFIRM_PASSWORD_HEADER] = confirmation;
    res = await fetch(`${path}?${params}`, { headers });
    if (res.ok) break;
    const body = (await res.json().catch(() => null)) as { message?: string; data?: { reauth?: string } | null } | null;
    const reauth = body?.data?.reauth;
    if (res.status === 401 && (reauth === 'required' || reauth === 'wrong')) {
      // The export needs the password again; cancelling downloads nothing and says nothing.
      confirmation = await askPassword(reauth === 'wrong');
      if (confirmation === null) return;
      continue;
    }
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
