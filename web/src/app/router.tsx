import { createBrowserRouter, redirect, type RouteObject } from 'react-router-dom';
import { MENU_REDIRECTS, type MenuItem } from '@passcloud/functions/contract/menu';
import { getToken } from './session.ts';
import { firstPermitted, flatten, isConsolePath, loadMenu } from './menu.ts';
import { SCREENS, loadScreen, withChunkTimeout } from './screens.ts';
import { RouteError } from './RouteError.tsx';
import { PUBLIC_SCREENS } from './publicScreens.ts';
import { redirectIn, withRedirect } from './redirect.ts';
import { loadConsoleMessages } from './i18n.ts';

export interface RouteHandle {
  /** Menu title key of the screen. */
  title?: string;
}

const page =
  (load: () => Promise<{ default: React.ComponentType }>): RouteObject['lazy'] =>
  async () => ({ Component: (await withChunkTimeout(load)).default });

/**
 * The console's frame, drawn once its catalog is in (public screens have theirs from the start).
 * The toasts' frame, which the console shows often, loads alongside (App.tsx renders it).
 */
const consolePage: RouteObject['lazy'] = async () => {
  void import('./layout/Toasts.tsx').catch(() => undefined);
  const [layout] = await Promise.all([withChunkTimeout(() => import('./layout/MainLayout.tsx')), withChunkTimeout(loadConsoleMessages)]);
  return { Component: layout.default };
};

/** Public screens: no layout, no login. `/login` sends a signed-in user on (to `?redirect=` or home). */
function publicRoutes(): RouteObject[] {
  return Object.entries(PUBLIC_SCREENS).map(([path, load]) => ({
    path,
    ...(path === '/login'
      ? { loader: ({ request }: { request: Request }) => (getToken() ? redirect(redirectIn(new URL(request.url).search) ?? '/') : null) }
      : {}),
    lazy: page(load),
    errorElement: <RouteError />,
    hydrateFallbackElement: <></>,
  }));
}

/** The screens an account may open, built from its permitted menu. */
export function permittedRoutes(menu: MenuItem[]): RouteObject[] {
  const routes: RouteObject[] = [];
  for (const item of flatten(menu)) {
    if (SCREENS[item.path]) {
      routes.push({ path: item.path, handle: { title: item.title } satisfies RouteHandle, lazy: async () => ({ Component: await loadScreen(item.path) }) });
    } else if (item.children?.length) {
      const target = firstPermitted(item.children);
      routes.push({ path: item.path, loader: () => redirect(target) });
    }
  }
  return routes;
}

/**
 * Without a session nothing private is requested: the visitor goes to the entrance, which keeps
 * a console page they opened as the place to return to after login.
 */
function toEntrance(request: Request) {
  const url = new URL(request.url);
  return redirect(withRedirect('/entrance', url.pathname + url.search + url.hash));
}

/** Any other path: home without a session, the first permitted screen for a screen not permitted, else /404. */
async function otherPath({ request }: { request: Request }) {
  if (!getToken()) return toEntrance(request);
  const path = new URL(request.url).pathname;
  if (isConsolePath(path)) return redirect(firstPermitted(await loadMenu()));
  return redirect('/404');
}

export function createAppRouter() {
  let patched = false;
  return createBrowserRouter(
    [
      ...publicRoutes(),
      {
        id: 'main',
        path: '/',
        loader: async ({ request }) => {
          if (!getToken()) return toEntrance(request);
          return { menu: await loadMenu() };
        },
        lazy: consolePage,
        errorElement: <RouteError />,
        hydrateFallbackElement: <></>,
        children: [
          // Loaders of a match run side by side, so the index checks the session itself.
          { index: true, loader: async ({ request }) => (getToken() ? redirect(firstPermitted(await loadMenu())) : toEntrance(request)) },
          ...Object.entries(MENU_REDIRECTS).map(([from, to]) => ({ path: from, loader: () => redirect(to) })),
          { path: '*', loader: otherPath },
        ],
      },
    ],
    {
      // On the first navigation with a token the permitted routes are fetched and added; the
      // router then retries the match.
      async patchRoutesOnNavigation({ patch }) {
        if (patched || !getToken()) return;
        const menu = await loadMenu();
        patch('main', permittedRoutes(menu));
        patched = true;
      },
    },
  );
}
