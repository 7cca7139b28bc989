import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'cdk.out/**', '.data/**', 'tests/.tmp/**', 'web/src/locales/**/*.ts', 'web/public/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly', setTimeout: 'readonly', fetch: 'readonly', document: 'readonly', performance: 'readonly', crypto: 'readonly', TextEncoder: 'readonly', FormData: 'readonly', Blob: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-template-curly-in-string': 'off',
    },
  },
  {
    // The device protocol lives in functions/contract; the cloud side never depends on the device side.
    files: ['functions/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ group: ['@passcloud/device-shadow', '@passcloud/device-shadow/*'], message: 'functions/ may not import the device side; shared protocol belongs in functions/contract.' }] }],
      // Each variable is declared in functions/lib/env.ts and read through env(), so the stack can set exactly what a function reads.
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read environment variables with env() from functions/lib/env.ts.' }],
    },
  },
  { files: ['functions/lib/env.ts'], rules: { 'no-restricted-properties': 'off' } },
);
