import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import babel from '@rolldown/plugin-babel';
import { lingui } from '@lingui/vite-plugin';

export default defineConfig({
  plugins: [react(), babel({ plugins: ['@lingui/babel-plugin-lingui-macro'] }), lingui({ failOnMissing: process.env.LINGUI_ALLOW_MISSING !== '1', failOnCompileError: true })],
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
            // Server state, the list frame, the parts of list filters and the live channel are the console's, loaded with
            // its screens: kept out of the shared chunk that the public pages (/login, /entrance) load too.
            { name: 'app', test: /web[\\/]src[\\/](app|components)[\\/](?!queries\.|ListFrame\.|KeywordInput\.|GroupFilter\.|PersonName\.|live[\\/])/, priority: 1, minShareCount: 2 },
          ],
        },
      },
    },
  },
});
