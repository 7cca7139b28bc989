import { useLayoutEffect, type RefObject } from 'react';

/** Room kept between the toast and the header's controls, in px. */
const GAP = 12;

/**
 * Keeps the one toast (layout/Toasts.tsx, Toasts.module.css) in the header's free middle: between the
 * element that ends the header's start (`start`) and the one that begins its end (`end`), so it
 * covers neither a header control nor the screen below. Without a header the toast is centred
 * across the page.
 */
export function useToastBand(start: RefObject<HTMLElement | null>, end: RefObject<HTMLElement | null>): void {
  useLayoutEffect(() => {
    const root = document.documentElement.style;
    const place = () => {
      if (!start.current || !end.current) return;
      root.setProperty('--toast-start', `${Math.round(start.current.getBoundingClientRect().right) + GAP}px`);
      root.setProperty('--toast-end', `${Math.round(window.innerWidth - end.current.getBoundingClientRect().left) + GAP}px`);
    };
    place();
    const observer = new ResizeObserver(place);
    for (const element of [start.current, end.current, document.body]) if (element) observer.observe(element);
    return () => {
      observer.disconnect();
      root.removeProperty('--toast-start');
      root.removeProperty('--toast-end');
    };
  }, [start, end]);
}
