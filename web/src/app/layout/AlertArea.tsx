import { useEffect } from 'react';
import { Notifications, createNotificationsStore, notifications } from '@mantine/notifications';
import classes from './AlertArea.module.css';

/**
 * Live alerts (blacklist hits, abnormal questionnaire results) have their own place, top right,
 * so they neither queue behind nor push away the console's single toast; every kind shares it so
 * they stack rather than cover one another.
 */
export const alertStore = createNotificationsStore();

export function AlertArea() {
  useEffect(() => () => notifications.clean(alertStore), []);
  return <Notifications store={alertStore} position="top-right" limit={4} notificationMaxHeight={320} classNames={{ root: classes.alerts }} />;
}
