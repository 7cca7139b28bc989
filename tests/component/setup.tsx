import { afterEach, beforeAll, vi } from 'vitest';
import { cleanup } from '@testing-library/react';
import { notifications } from '@mantine/notifications';
import { activateLocale } from '../../web/src/app/i18n.ts';

/**
 * What jsdom lacks and Mantine uses (media queries, element sizes, scrolling), the English catalogs
 * activated as the console activates them, and a clean page, storage and fetch after each test.
 */
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});
window.ResizeObserver ??= class {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
};
window.HTMLElement.prototype.scrollIntoView ??= () => undefined;
// Autosizing text areas follow the page's fonts as they load.
if (!('fonts' in document)) Object.defineProperty(document, 'fonts', { value: new EventTarget() });

beforeAll(async () => {
  await activateLocale('en_US', { withConsole: true });
});

afterEach(() => {
  cleanup();
  notifications.clean();
  localStorage.clear();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});
