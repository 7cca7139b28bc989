import { useEffect, useRef, useState, type ReactNode } from 'react';
import classes from './DataTable.module.css';

/**
 * Lets a wide table scroll sideways inside its card, with a scroll bar that stays in sight, and
 * marks the sides where columns are hidden (`data-more-start`, `data-more-end`): the cells that
 * stay in place cast a shade there, or else the edge itself does, so a column cut at the edge
 * reads as one more to scroll to.
 */
export function ScrollTable({ children }: { children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ start: false, end: false });
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => {
      const scrolled = Math.abs(element.scrollLeft);
      const next = { start: scrolled > 0, end: scrolled + element.clientWidth < element.scrollWidth - 1 };
      setMore((current) => (current.start === next.start && current.end === next.end ? current : next));
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    element.addEventListener('scroll', update, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener('scroll', update);
    };
  }, []);
  return (
    <div className={classes.frame} data-more-start={more.start || undefined} data-more-end={more.end || undefined}>
      <div ref={ref} className={classes.scroll}>
        {children}
      </div>
    </div>
  );
}
