import { useEffect } from 'react';
import { Notifications, createNotificationsStore, notifications, useNotifications } from '@mantine/notifications';
import classes from './AlertArea.module.css';

/**
 * Live alerts (blacklist hits, abnormal questionnaire results) have their own place, so they
 * neither queue behind nor push away the console's single toast; every kind shares it so they
 * stack rather than cover one another.
 */
export const alertStore = createNotificationsStore();

/** The width of the column the alerts stack in, at the right edge below the header (MainLayout.tsx). */
export const ALERT_COLUMN = 320;

/** True while an alert shows: the layout then keeps its column free of the screen. */
export function useAlerting(): boolean {
  return useNotifications(alertStore).notifications.length > 0;
}

/**
 * The alerts, stacked from the top of their column. The screen narrows to make room for the
 * column while an alert shows, so an alert never covers a filter, a button or a row of any
 * screen, and the screen's tables scroll sideways if they must.
 */
export function AlertArea() {
  useEffect(() => () => notifications.clean(alertStore), []);
  return (
    <Notifications store={alertStore} position="top-right" limit={4} notificationMaxHeight={320} withinPortal={false} classNames={{ root: classes.alerts }} />
  );
}
