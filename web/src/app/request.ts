/**
 * The request client of SPEC.md §7-§8: 30 s timeout, reads `data` from the envelope, one
 * closable toast at a time for 2 s (the server's message, else the catalogue text), a loading
 * indicator shown on the first pending request and closed 300 ms after the last, and a logout
 * on the session codes 600-699. The UI effects come in as hooks so the rules can be tested
 * against a fake server without a browser.
 */

export interface Envelope<T = unknown> {
  code: number;
  message: string;
  data: T;
}

export interface FieldIssue {
  path: string;
  message: string;
}

export class RequestError extends Error {
  /** The client has shown it in the toast: whoever handles the failure need not show it again. */
  shown = false;

  constructor(
    /** HTTP status, or 0 when no answer came (network failure or time-out). */
    readonly status: number,
    /** The envelope code (the 6xx session codes travel with HTTP 401). */
    readonly code: number,
    message: string,
    readonly data: unknown = null,
  ) {
    super(message);
  }

  /** The caller gave the request up (its signal aborted): nothing to show. */
  get aborted(): boolean {
    return this.status === 0 && this.code === 0;
  }

  /** Field problems of a 422 (or a 409 on a unique field), by field path. */
  get issues(): FieldIssue[] {
    const issues = (this.data as { issues?: FieldIssue[] } | null)?.issues;
    return Array.isArray(issues) ? issues : [];
  }
}

export interface ClientHooks {
  token(): string | null;
  locale(): string;
  /** Catalogue text of a status (SPEC.md §8) in the current language. */
  statusText(status: number): string;
  toast(message: string): void;
  loading(visible: boolean): void;
  /** The session is over (600-699, or 403 for a token the server no longer knows). */
  sessionEnded(code: number): void;
  /**
   * A route asks for the password again (401 with `data.reauth`): the password sealed with the
   * session's key, or null when the user cancels. `wrong`: the last one was not right.
   */
  confirmPassword?(wrong: boolean): Promise<string | null>;
}

export interface ClientOptions {
  baseUrl?: string;
  timeoutMs?: number;
  loadingCloseDelayMs?: number;
  fetch?: typeof fetch;
}

export interface RequestOptions {
  body?: unknown;
  form?: FormData;
  query?: Record<string, string | number | boolean | undefined | null>;
  /** No toast on failure: the caller shows the problem itself (inline field errors). */
  silent?: boolean;
  /** Do not show the loading indicator (background refreshes). */
  quiet?: boolean;
  signal?: AbortSignal;
  /** The confirmed password, sealed (sent as `x-confirm-password`). */
  confirmation?: string;
}

/** The header a request confirms the password in (functions/lib/auth.ts). */
export const CONFIRM_PASSWORD_HEADER = 'x-confirm-password';

/** A route asked for the password again; the client asks the user and sends the request once more. */
class PasswordAsked extends RequestError {
  constructor(
    readonly wrong: boolean,
    status: number,
    code: number,
    message: string,
    data: unknown,
  ) {
    super(status, code, message, data);
  }
}

export const REQUEST_TIMEOUT_MS = 30_000;
export const LOADING_CLOSE_DELAY_MS = 300;

export interface Client {
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** Requests in flight (for tests and the loading indicator). */
  pending(): number;
}

export function createClient(hooks: ClientHooks, options: ClientOptions = {}): Client {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const closeDelay = options.loadingCloseDelayMs ?? LOADING_CLOSE_DELAY_MS;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  let inFlight = 0;
  let visible = false;
  let closeTimer: ReturnType<typeof setTimeout> | undefined;

  function begin(): void {
    inFlight++;
    if (closeTimer) {
      clearTimeout(closeTimer);
      closeTimer = undefined;
    }
    if (!visible) {
      visible = true;
      hooks.loading(true);
    }
  }

  function end(): void {
    inFlight--;
    if (inFlight > 0) return;
    closeTimer = setTimeout(() => {
      closeTimer = undefined;
      if (inFlight === 0 && visible) {
        visible = false;
        hooks.loading(false);
      }
    }, closeDelay);
  }

  function fail(error: RequestError, silent: boolean, hadToken: boolean): never {
    const sessionOver = (error.code >= 600 && error.code <= 699) || (error.code === 403 && hadToken);
    if (!silent || sessionOver) {
      hooks.toast(error.message);
      error.shown = true;
    }
    if (sessionOver) hooks.sessionEnded(error.code);
    throw error;
  }

  /** Sends the request; when the route asks for the password, asks the user and sends it again until it is right or the user cancels. */
  async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    for (let options = opts; ;) {
      try {
        return await send<T>(method, path, options);
      } catch (error) {
        if (!(error instanceof PasswordAsked) || !hooks.confirmPassword) throw error;
        const confirmation = await hooks.confirmPassword(error.wrong);
        // Cancelled: the request is not made; it fails with the server's words, for the caller to show.
        if (confirmation === null) throw new RequestError(error.status, error.code, error.message, error.data);
        options = { ...options, confirmation };
      }
    }
  }

  async function send<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL((options.baseUrl ?? '') + path, options.baseUrl ? undefined : 'http://placeholder');
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, String(v));
    const target = options.baseUrl ? url.toString() : url.pathname + url.search;
    const token = hooks.token();
    const headers: Record<string, string> = { 'accept-language': hooks.locale() };
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.confirmation) headers[CONFIRM_PASSWORD_HEADER] = opts.confirmation;
    let body: FormData | string | undefined;
    if (opts.form) body = opts.form;
    else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort();
    opts.signal?.addEventListener('abort', onAbort);
    if (!opts.quiet) begin();
    try {
      let res: Response;
      try {
        res = await doFetch(target, { method, headers, body, signal: controller.signal });
      } catch {
        if (opts.signal?.aborted && !timedOut) throw new RequestError(0, 0, 'aborted');
        return fail(new RequestError(0, timedOut ? 504 : 503, hooks.statusText(timedOut ? 504 : 503)), !!opts.silent, !!token);
      }
      let envelope: Envelope<T> | undefined;
      try {
        envelope = (await res.json()) as Envelope<T>;
      } catch {
        if (timedOut) return fail(new RequestError(0, 504, hooks.statusText(504)), !!opts.silent, !!token);
        envelope = undefined;
      }
      if (res.ok && typeof envelope?.code !== 'number') {
        // A success without the API's envelope (an HTML page from a proxy or CDN) is never a success.
        return fail(new RequestError(res.status, 502, hooks.statusText(502)), !!opts.silent, !!token);
      }
      const code = envelope?.code ?? res.status;
      if (!res.ok || code >= 300) {
        const message = envelope?.message || hooks.statusText(code);
        const reauth = (envelope?.data as { reauth?: unknown } | null | undefined)?.reauth;
        if (res.status === 401 && (reauth === 'required' || reauth === 'wrong') && hooks.confirmPassword) {
          throw new PasswordAsked(reauth === 'wrong', res.status, code, message, envelope?.data ?? null);
        }
        return fail(new RequestError(res.status, code, message, envelope?.data ?? null), !!opts.silent, !!token);
      }
      return (envelope?.data ?? null) as T;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (!opts.quiet) end();
    }
  }

  return { request, pending: () => inFlight };
}

export type ToastKind = 'error' | 'success';
export const TOAST_MS = 2000;

/**
 * Shows one toast at a time: a new one replaces the one on screen, and each closes after
 * `durationMs` or when its own `close` is called (the close button). `show` answers a function
 * that hides what it showed; it runs once per toast, so a UI whose hiding reports back through
 * `close` (Mantine's `onClose`) does not loop, and a late report of a replaced toast does not
 * touch the one on screen.
 */
export function singleToast(
  show: (message: string, close: () => void, kind: ToastKind) => () => void,
  durationMs = TOAST_MS,
): (message: string, kind?: ToastKind) => void {
  /** Closes the toast on screen. */
  let closeCurrent: (() => void) | undefined;
  return (message: string, kind: ToastKind = 'error') => {
    closeCurrent?.();
    const shown: { closed: boolean; hide?: () => void } = { closed: false };
    const close = () => {
      if (shown.closed) return;
      shown.closed = true;
      clearTimeout(timer);
      if (closeCurrent === close) closeCurrent = undefined;
      shown.hide?.();
    };
    const timer = setTimeout(close, durationMs);
    closeCurrent = close;
    shown.hide = show(message, close, kind);
    // Closed while being shown: hide it now that there is something to hide.
    if (shown.closed) shown.hide();
  };
}
