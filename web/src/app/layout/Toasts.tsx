import { Notifications } from '@mantine/notifications';
import toasts from '../Toasts.module.css';

/** The place of the single toast (SPEC.md §8); App.tsx loads it when first needed, the console's route with its layout. */
export default function Toasts() {
  return <Notifications position="top-center" limit={1} classNames={{ root: toasts.root, notification: toasts.toast }} />;
}
