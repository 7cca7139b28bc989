import { notifications } from '@mantine/notifications';
import { msg } from '@lingui/core/macro';
import { i18n } from './i18n.ts';
import { createClient, singleToast, type RequestOptions } from './request.ts';
import { statusText } from './statusText.ts';
import { setLoading } from './loading.ts';
import { getToken } from './session.ts';
import { storedLocale } from './locales.ts';

let toastCount = 0;

/** Asks for the password again (a route with `reauth`); the dialog loads with the first such route. */
export const askPassword = (wrong: boolean): Promise<string | null> => import('../components/ConfirmPassword.tsx').then((m) => m.askPassword(wrong));
let sessionEndedHandler: (code: number) => void = () => undefined;

/** The app registers what happens when the server ends the session (log out, go to /login). */
export function onSessionEnded(handler: (code: number) => void): void {
  sessionEndedHandler = handler;
}

/**
 * The one toast of SPEC.md §8: errors in red, successes in green, 2 s each, closable. The timing
 * is singleToast's (Mantine's own timer stays off so there is one clock); each toast has its own
 * id, so hiding one never touches the next.
 */
const showToast = singleToast((message, close, kind) => {
  const id = `toast-${++toastCount}`;
  notifications.show({
    id,
    message,
    color: kind === 'success' ? 'teal' : 'red',
    withCloseButton: true,
    closeButtonProps: { 'aria-label': i18n._(msg`Close`) },
    autoClose: false,
    onClose: close,
    'data-kind': kind,
  });
  return () => notifications.hide(id);
});

/** An error (or any notice) in the single-toast place, in red. */
export const toast = (message: string): void => showToast(message, 'error');

export const client = createClient({
  token: getToken,
  locale: storedLocale,
  statusText,
  toast,
  loading: setLoading,
  sessionEnded: (code) => sessionEndedHandler(code),
  confirmPassword: askPassword,
});

export const api = {
  get: <T>(path: string, options?: RequestOptions) => client.request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => client.request<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => client.request<T>('PATCH', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => client.request<T>('PUT', path, { ...options, body }),
  del: <T>(path: string, options?: RequestOptions) => client.request<T>('DELETE', path, options),
};

/** A success message in the same single-toast place, in green. */
export function notifySuccess(message: string): void {
  showToast(message, 'success');
}
