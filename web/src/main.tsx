import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/global.css';
import { activateLocale } from './app/i18n.ts';
import { storedLocale } from './app/locales.ts';
import { App } from './app/App.tsx';

// A stylesheet or script preload that fails (a chunk of an older build, a dropped connection)
// reloads the page once; if it fails again soon after, the screen shows the error with a retry.
window.addEventListener('vite:preloadError', (event) => {
  const last = Number(sessionStorage.getItem('preloadReloadAt') ?? 0);
  if (Date.now() - last < 60_000) return;
  sessionStorage.setItem('preloadReloadAt', String(Date.now()));
  event.preventDefault();
  window.location.reload();
});

await activateLocale(storedLocale());
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
