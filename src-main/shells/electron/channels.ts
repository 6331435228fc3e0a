// The IPC channel names the main process and the preload bridge share. One place, so the two
// sides cannot drift apart by a typo.
export const API_CHANNEL = 'backlot:api';
export const EVENT_CHANNEL = 'backlot:event';
/** Main asks the window to show a view (a NoticeTarget): a notification or a menu item was clicked. */
export const NAVIGATE_CHANNEL = 'backlot:navigate';
