import type { ReactElement } from 'react';
import { render, type RenderResult } from '@testing-library/react';
import userEvent, { type UserEvent } from '@testing-library/user-event';
import { MantineProvider } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { Notifications } from '@mantine/notifications';
import { I18nProvider } from '@lingui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { MemoryRouter } from 'react-router-dom';
import { vi, type Mock } from 'vitest';
import { i18n } from '../../web/src/app/i18n.ts';
import { theme } from '../../web/src/app/theme.ts';

export interface Rendered extends RenderResult {
  user: UserEvent;
  client: QueryClient;
}

/**
 * Renders a console component as the console does: Mantine with the console's theme, its
 * confirmations (modals) and its one toast (notifications), Lingui with the English catalogs, a
 * memory router at `route`, and a fresh QueryClient that neither retries nor shares what it read.
 * Transitions and portals are off (Mantine's test environment), so dialogs render in place.
 */
export function renderConsole(ui: ReactElement, { route = '/' }: { route?: string } = {}): Rendered {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false }, mutations: { retry: false } } });
  const result = render(
    <I18nProvider i18n={i18n}>
      <MantineProvider theme={theme} env="test">
        <Notifications limit={1} />
        <QueryClientProvider client={client}>
          <MemoryRouter initialEntries={[route]}>
            <ModalsProvider>{ui}</ModalsProvider>
          </MemoryRouter>
        </QueryClientProvider>
      </MantineProvider>
    </I18nProvider>,
  );
  return { ...result, client, user: userEvent.setup() };
}

/** One answer of the API: the envelope of SPEC.md §7 with its HTTP status. */
export interface Answer {
  status?: number;
  code?: number;
  message?: string;
  data?: unknown;
}

/**
 * Stands in for the API: each request (`METHOD /path`) gets the next answer given for it, a
 * success with no data when none is left. The mock records the requests made.
 */
export function fakeApi(answers: Record<string, Answer[]> = {}): Mock<(input: string, init?: RequestInit) => Promise<Response>> {
  const fetch = vi.fn(async (input: string, init?: RequestInit) => {
    const key = `${init?.method ?? 'GET'} ${new URL(input, 'http://console').pathname}`;
    const answer = answers[key]?.shift() ?? {};
    const status = answer.status ?? 200;
    const body = { code: answer.code ?? status, message: answer.message ?? '', data: answer.data ?? null };
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetch);
  return fetch;
}

/** The requests a fake API received, as `METHOD /path`. */
export const requestsOf = (fetch: Mock<(input: string, init?: RequestInit) => Promise<Response>>): string[] =>
  fetch.mock.calls.map(([input, init]) => `${init?.method ?? 'GET'} ${new URL(input, 'http://console').pathname}`);
