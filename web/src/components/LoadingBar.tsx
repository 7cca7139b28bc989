import { useLoading } from '../app/loading.ts';
import classes from './LoadingBar.module.css';

/** A thin bar at the top while requests are pending (shown on the first, closed 300 ms after the last). */
export function LoadingBar() {
  const visible = useLoading();
  return visible ? <div className={classes.bar} role="progressbar" aria-label="loading" data-testid="loading-bar" /> : null;
}
