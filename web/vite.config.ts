import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  server: { proxy: { '/v1': 'http://localhost:3000', '/_local': 'http://localhost:3000' } },
  build: { outDir: 'dist', emptyOutDir: true },
});
