import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './app/global.css';
import { activateLocale } from './app/i18n.ts';
import { storedLocale } from './app/locales.ts';
import { App } from './app/App.tsx';

// A stylesheet or script preload that fails (an old build's chunk, a dropped connection)
// reloads once instead of leaving a broken screen.
window.addEventListener('vite:preloadError', (event) => {
  if (sessionStorage.getItem('preloadRetried')) return;
  sessionStorage.setItem('preloadRetried', '1');
  event.preventDefault();
  window.location.reload();
});

await activateLocale(storedLocale());
sessionStorage.removeItem('preloadRetried');
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
