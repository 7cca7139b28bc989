import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import babel from '@rolldown/plugin-babel';
import { lingui } from '@lingui/vite-plugin';
import { getConfig } from '@lingui/conf';
import { getCatalogs } from '@lingui/cli/api';

/**
 * The modules the public screens load (publicScreens.ts) and the shell that starts them (main.tsx,
 * App.tsx), with everything they import statically: known once the module graph is built, before
 * the chunks are made.
 */
const publicModules = new Set<string>();
const SOURCE = /[\\/]web[\\/]src[\\/].*\.tsx?$/;
/** What the Lingui macros leave of a message in production code: { id: "…" } and id="…". */
const MESSAGE_ID = /\bid\s*[:=]\s*["']([^"'\s]+)["']/g;

/**
 * Finds the public modules and fails the build when one of them uses a message that is not in the
 * public catalog (lingui.config.ts): the public screens render before the console's catalog is
 * loaded, so such a message would show as its id.
 */
function publicMessages(): Plugin {
  const messageIds = new Map<string, string[]>();
  return {
    name: 'public-messages',
    apply: 'build',
    enforce: 'post',
    transform: {
      filter: { id: SOURCE },
      handler(code, id) {
        messageIds.set(
          id,
          [...code.matchAll(MESSAGE_ID)].map((m) => m[1]!),
        );
      },
    },
    async buildEnd(error) {
      if (error) return;
      const info = (id: string) => this.getModuleInfo(id);
      const ids = [...this.getModuleIds()];
      const entries = ids.filter((id) => info(id)?.isEntry);
      const screens = ids.filter((id) => /[\\/]src[\\/]app[\\/]publicScreens\.ts$/.test(id));
      const queue = [...entries, ...[...entries, ...screens].flatMap((id) => info(id)?.dynamicallyImportedIds ?? [])];
      publicModules.clear();
      for (const id of queue) {
        if (publicModules.has(id)) continue;
        publicModules.add(id);
        queue.push(...(info(id)?.importedIds ?? []));
      }
      const config = getConfig({ cwd: import.meta.dirname });
      const catalogs = await getCatalogs(config);
      const [publicCatalog, consoleCatalog] = await Promise.all(
        ['/public', '/messages'].map((path) => catalogs.find((c) => c.path.endsWith(path))!.read(config.sourceLocale!)),
      );
      // A check that finds no message at all would pass whatever the screens use.
      if (![...publicModules].some((module) => messageIds.get(module)?.some((id) => publicCatalog![id]))) {
        this.error('found no message of the public catalog in the public screens: MESSAGE_ID no longer matches what the Lingui macros leave');
      }
      const stray = [...publicModules].flatMap((module) =>
        (messageIds.get(module) ?? [])
          .filter((id) => !publicCatalog![id] && consoleCatalog![id])
          .map((id) => `${module}: ${consoleCatalog![id]!.message ?? id}`),
      );
      if (stray.length) {
        this.error(`public screens use messages of the console's catalog; add their files to PUBLIC_SOURCES in lingui.config.ts:\n${stray.join('\n')}`);
      }
    },
  };
}

export default defineConfig({
  plugins: [
    react(),
    babel({ plugins: ['@lingui/babel-plugin-lingui-macro'] }),
    lingui({ failOnMissing: process.env.LINGUI_ALLOW_MISSING !== '1', failOnCompileError: true }),
    publicMessages(),
  ],
  server: { proxy: { '/v1': 'http://localhost:3000', '/_local': 'http://localhost:3000' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 700,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            { name: 'framework', test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|@lingui)[\\/]/, priority: 3 },
            // The shell and what the public screens share, the first page's: their modules of src/app and src/components
            // (with what those import). What only the console's screens use loads with them.
            { name: 'app', test: (id) => publicModules.has(id) && /web[\\/]src[\\/](app|components)[\\/]/.test(id), priority: 1, minShareCount: 2 },
          ],
        },
      },
    },
  },
});
