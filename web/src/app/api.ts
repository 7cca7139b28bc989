import { notifications } from '@mantine/notifications';
import { createClient, singleToast, type RequestOptions } from './request.ts';
import { statusText } from './statusText.ts';
import { setLoading } from './loading.ts';
import { getToken } from './session.ts';
import { storedLocale } from './locales.ts';

const TOAST_ID = 'request-toast';
let sessionEndedHandler: (code: number) => void = () => undefined;

/** The app registers what happens when the server ends the session (log out, go to /login). */
export function onSessionEnded(handler: (code: number) => void): void {
  sessionEndedHandler = handler;
}

export const toast = singleToast((message, close) => {
  notifications.hide(TOAST_ID);
  notifications.show({ id: TOAST_ID, message, color: 'red', withCloseButton: true, autoClose: false, onClose: close });
  return () => notifications.hide(TOAST_ID);
});

export const client = createClient({
  token: getToken,
  locale: storedLocale,
  statusText,
  toast,
  loading: setLoading,
  sessionEnded: (code) => sessionEndedHandler(code),
});

export const api = {
  get: <T>(path: string, options?: RequestOptions) => client.request<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => client.request<T>('POST', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => client.request<T>('PATCH', path, { ...options, body }),
  del: <T>(path: string, options?: RequestOptions) => client.request<T>('DELETE', path, options),
};

/** A success message in the same single-toast place, in green. */
export function notifySuccess(message: string): void {
  notifications.hide(TOAST_ID);
  notifications.show({ id: TOAST_ID, message, color: 'teal', withCloseButton: true, autoClose: 2000 });
}
