import { lazy, Suspense, useEffect, useState } from 'react';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './global.css';
import { MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { notificationsStore } from '@mantine/notifications';
import { I18nProvider } from '@lingui/react';
import { RouterProvider } from 'react-router-dom';
import { i18n } from './i18n.ts';
import { theme } from './theme.ts';
import { createAppRouter } from './router.tsx';
import { logout, onReset } from './auth.ts';
import { onSessionEnded } from './api.ts';
import { LoadingBar } from '../components/LoadingBar.tsx';
import { DAYJS_LOCALES, storedLocale } from './locales.ts';

// A session the server ended (timed out, replaced, forced offline) comes back to the same page after the next login.
onSessionEnded(() => void logout({ skipServer: true, returnTo: window.location.pathname + window.location.search }));

// The toasts' frame loads with the first toast, or as soon as the user starts to act (a key, a
// click), so the first page does without it.
const ToastPlace = lazy(() => import('./layout/Toasts.tsx'));

function Toasts() {
  const [wanted, setWanted] = useState(() => notificationsStore.getState().notifications.length > 0);
  useEffect(() => {
    if (wanted) return;
    const want = () => setWanted(true);
    const unsubscribe = notificationsStore.subscribe(want);
    window.addEventListener('keydown', want, { once: true, capture: true });
    window.addEventListener('pointerdown', want, { once: true, capture: true });
    return () => {
      unsubscribe();
      window.removeEventListener('keydown', want, { capture: true });
      window.removeEventListener('pointerdown', want, { capture: true });
    };
  }, [wanted]);
  if (!wanted) return null;
  return (
    <Suspense fallback={null}>
      <ToastPlace />
    </Suspense>
  );
}

export function App() {
  const [router, setRouter] = useState(createAppRouter);
  useEffect(() => onReset(() => setRouter(createAppRouter())), []);
  return (
    <I18nProvider i18n={i18n}>
      <MantineProvider theme={theme}>
        <DatesProvider settings={{ locale: DAYJS_LOCALES[storedLocale()] }}>
          <Toasts />
          <LoadingBar />
          <RouterProvider router={router} />
        </DatesProvider>
      </MantineProvider>
    </I18nProvider>
  );
}
