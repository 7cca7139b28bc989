import { useEffect, useState, type ComponentType } from 'react';
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

/** What shows that the user has started to act, so a toast may follow. */
const ACTS = ['keydown', 'pointerdown', 'input'] as const;

/**
 * The toasts' frame (Mantine's Notifications) is no part of the first page: it loads with the
 * first toast or as soon as the user starts to act (the console's route loads it too). A toast
 * shown before then appears once the frame is in; a failed load is tried again at the next act.
 */
function Toasts() {
  const [Frame, setFrame] = useState<ComponentType>();
  useEffect(() => {
    let loading = false;
    const load = () => {
      if (loading) return;
      loading = true;
      import('./layout/Toasts.tsx').then(
        (module) => {
          stop();
          setFrame(() => module.default);
        },
        () => {
          loading = false;
        },
      );
    };
    const unsubscribe = notificationsStore.subscribe(load);
    for (const act of ACTS) window.addEventListener(act, load, { capture: true, passive: true });
    const stop = () => {
      unsubscribe();
      for (const act of ACTS) window.removeEventListener(act, load, { capture: true });
    };
    if (notificationsStore.getState().notifications.length > 0) load();
    return stop;
  }, []);
  return Frame ? <Frame /> : null;
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
