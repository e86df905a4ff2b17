import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './app/app.css';
import { App } from './App';
import './app/responsive.css';
import './app/diff-contrast.css';
import { EngineClient } from './engine-client';
import { RoomContext, type Room } from './room-context';
import { createConnectionStore } from './stores/connection-store';
import { createShellsStore } from './stores/shells-store';
import { pickTransport } from './transports/pick-transport';
import { sendNotificationsToDesktop } from './stores/notify';

const picked = pickTransport();
// a sign-in link opened in a tab already on the UI changes only the fragment: start over to take it
window.addEventListener('hashchange', () => {
  if (/(^#|&)token=/.test(window.location.hash)) window.location.reload();
});
const client = new EngineClient(picked.transport);
const room: Room = { client, connection: createConnectionStore(client), shells: createShellsStore(client), desktop: picked.desktop, problem: () => picked.transport.problem?.() ?? null };
// inside the desktop app a notification is the app's own (Electron's Notification, from the main process)
if (picked.desktop) sendNotificationsToDesktop(picked.desktop);

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <RoomContext.Provider value={room}>
        <App />
      </RoomContext.Provider>
    </StrictMode>,
  );
}
