import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { activateLocale } from './app/i18n.ts';
import { storedLocale } from './app/locales.ts';
import { PUBLIC_SCREENS } from './app/publicScreens.ts';
import { getToken } from './app/session.ts';

// A stylesheet or script preload that fails (a chunk of an older build, a dropped connection)
// reloads the page once; if it fails again soon after, the screen shows the error with a retry.
window.addEventListener('vite:preloadError', (event) => {
  const last = Number(sessionStorage.getItem('preloadReloadAt') ?? 0);
  if (Date.now() - last < 60_000) return;
  sessionStorage.setItem('preloadReloadAt', String(Date.now()));
  event.preventDefault();
  window.location.reload();
});

// The app and its stylesheets load behind the static shell of index.html, so the first paint
// does not wait for them. A public screen needs the public catalog only; a console page opened
// with a session needs the console's too (without one, the visitor goes to the entrance).
const screen = PUBLIC_SCREENS[window.location.pathname];
const withConsole = !screen && getToken() !== null;
const [{ App }] = await Promise.all([import('./app/App.tsx'), activateLocale(storedLocale(), { withConsole }), screen?.()]);
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
