import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'blue',
  defaultRadius: 'sm',
  fontFamily:
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Noto Sans CJK SC", "Noto Sans CJK JP", "Noto Sans CJK KR", "PingFang SC", "Hiragino Sans", "Microsoft YaHei", sans-serif',
  components: {
    // Dialogs open below the header's band, where the one toast shows (App.tsx).
    // A plain object: Modal.extend would pull the dialog's code into the public pages' first download.
    Modal: { defaultProps: { yOffset: 72 } },
  },
});

/** Brand variants of the header; the build picks one by a fixed index (VITE_BRAND_INDEX). */
export const BRANDS = [
  { name: 'Pass Cloud', mark: 'PC', color: '#1c7ed6' },
  { name: 'Pass Cloud Pro', mark: 'P+', color: '#0ca678' },
  { name: 'SecureGate', mark: 'SG', color: '#7048e8' },
] as const;

export const BRAND = BRANDS[Number(import.meta.env.VITE_BRAND_INDEX ?? 0)] ?? BRANDS[0];

export const PRODUCT_VERSION = '3.2.0';
