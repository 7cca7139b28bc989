import { msg } from '@lingui/core/macro';
import type { MessageDescriptor } from '@lingui/core';
import { i18n } from './i18n.ts';

/** The catalogue of SPEC.md §8, shown when the server sends no message of its own. */
const STATUS: Record<number, MessageDescriptor> = {
  200: msg`Success`,
  201: msg`Created or modified`,
  202: msg`Queued; it will complete shortly`,
  204: msg`Deleted`,
  400: msg`The server is busy; please try again later`,
  401: msg`You do not have permission to do this`,
  403: msg`Please log in again`,
  404: msg`Wrong request path`,
  406: msg`This format is not available`,
  409: msg`This record was changed by someone else; reload it and try again`,
  410: msg`This resource has been permanently deleted`,
  422: msg`Some fields are not valid`,
  429: msg`Too many attempts; please try again later`,
  500: msg`The server is busy; please try again later`,
  661: msg`You have been forced offline; please log in again`,
  662: msg`Your account has logged in elsewhere`,
  666: msg`Your login has timed out; please log in again`,
};

export function statusText(status: number): string {
  const descriptor = STATUS[status] ?? (status >= 500 ? STATUS[500]! : status >= 600 && status < 700 ? STATUS[403]! : STATUS[400]!);
  return i18n._(descriptor);
}
