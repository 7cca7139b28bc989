import { useEffect, useSyncExternalStore } from 'react';
import { AppShell } from '@mantine/core';
import { ModalsProvider } from '@mantine/modals';
import { QueryClientProvider } from '@tanstack/react-query';
import { queryClient } from '../queries.ts';
import { useLocalStorage } from '@mantine/hooks';
import { useLingui } from '@lingui/react/macro';
import { Outlet, useLoaderData, useLocation, useMatches } from 'react-router-dom';
import type { MenuItem } from '@passcloud/functions/contract/menu';
import { menuTitle } from '../menuTitles.ts';
import type { RouteHandle } from '../router.tsx';
import { platformOf } from '../menu.ts';
import { mustChangePassword, mustEnrolTwoFactor, onPasswordChanged, onTwoFactorChanged } from '../session.ts';
import { Header } from './Header.tsx';
import { SideMenu } from './SideMenu.tsx';
import { BlacklistAlerts } from '../../features/passage/records/BlacklistAlerts.tsx';
import { QuestionnaireAlerts } from '../../features/questionnaires/QuestionnaireAlerts.tsx';
import { ALERT_COLUMN, AlertArea, useAlerting } from './AlertArea.tsx';
import { DoorModeBanner } from './DoorModeBanner.tsx';

export const MENU_EXPANDED = 250;
export const MENU_COLLAPSED = 65;

/**
 * Header, side menu and content; the dashboard sits on a dark background, other screens on light grey.
 * An account that must choose its own password first (the header asks for it) gets no screen and
 * no alerts until it has: the server refuses it everything else, so nothing else is requested.
 */
export default function MainLayout() {
  const { menu } = useLoaderData() as { menu: MenuItem[] };
  const waitForPassword = useSyncExternalStore(onPasswordChanged, mustChangePassword);
  // Likewise an account whose company requires two-factor login sets it up first (the header asks for it).
  const waitForTwoFactor = useSyncExternalStore(onTwoFactorChanged, mustEnrolTwoFactor);
  const waiting = waitForPassword || waitForTwoFactor;
  const { pathname } = useLocation();
  const matches = useMatches();
  const { t } = useLingui();
  const [collapsed, setCollapsed] = useLocalStorage({ key: 'menuCollapsed', defaultValue: false });
  const platform = platformOf(menu, pathname);
  const sideItems = platform && platform.path !== '/settings' ? (platform.children ?? []) : [];
  const dark = pathname === '/pass-platform/dashboard';
  const alerting = useAlerting() && !waiting;
  const background = dark ? '#0b1727' : '#f0f2f5';

  const titleKey = [...matches].reverse().find((m) => (m.handle as RouteHandle | undefined)?.title)?.handle as RouteHandle | undefined;
  useEffect(() => {
    const tagline = t`Pass Cloud · face recognition access control`;
    document.title = titleKey?.title ? `${menuTitle(titleKey.title)} - ${tagline}` : tagline;
  }, [titleKey, t]);

  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);

  return (
    <QueryClientProvider client={queryClient}>
      <AppShell
        header={{ height: 56 }}
        navbar={sideItems.length ? { width: collapsed ? MENU_COLLAPSED : MENU_EXPANDED, breakpoint: 0 } : undefined}
        aside={{ width: ALERT_COLUMN, breakpoint: 0, collapsed: { desktop: !alerting, mobile: !alerting } }}
        padding="md"
        styles={{ main: { background, color: dark ? '#e9ecef' : undefined, minHeight: '100vh' }, aside: { background, overflowY: 'auto' } }}
      >
        <AppShell.Header>
          <Header menu={menu} />
        </AppShell.Header>
        {sideItems.length > 0 && (
          <AppShell.Navbar>
            <SideMenu items={sideItems} collapsed={collapsed} onToggle={() => setCollapsed(!collapsed)} />
          </AppShell.Navbar>
        )}
        <AppShell.Main>
          {/* Confirmations are a console matter; the public screens do without them. A door mode in force heads every screen. */}
          <ModalsProvider>
            {!waiting && <DoorModeBanner />}
            {!waiting && <Outlet />}
          </ModalsProvider>
          {!waiting && (
            <>
              <BlacklistAlerts />
              <QuestionnaireAlerts />
            </>
          )}
        </AppShell.Main>
        {/* Live alerts stack in a column of their own at the right edge while any shows; the screen narrows beside it. */}
        <AppShell.Aside p="sm" data-testid="alert-column">
          {!waiting && <AlertArea />}
        </AppShell.Aside>
      </AppShell>
    </QueryClientProvider>
  );
}
