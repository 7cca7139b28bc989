import { useEffect, useState } from 'react';
import '@mantine/core/styles.css';
import '@mantine/notifications/styles.css';
import './global.css';
import { MantineProvider } from '@mantine/core';
import { DatesProvider } from '@mantine/dates';
import { Notifications } from '@mantine/notifications';
import toasts from './Toasts.module.css';
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

export function App() {
  const [router, setRouter] = useState(createAppRouter);
  useEffect(() => onReset(() => setRouter(createAppRouter())), []);
  return (
    <I18nProvider i18n={i18n}>
      <MantineProvider theme={theme}>
        <DatesProvider settings={{ locale: DAYJS_LOCALES[storedLocale()] }}>
          <Notifications position="top-center" limit={1} classNames={{ root: toasts.root, notification: toasts.toast }} />
          <LoadingBar />
          <RouterProvider router={router} />
        </DatesProvider>
      </MantineProvider>
    </I18nProvider>
  );
}
