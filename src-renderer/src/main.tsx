import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './app/app.css';
import { App } from './App';
import { EngineClient } from './engine-client';
import { RoomContext, type Room } from './room-context';
import { createConnectionStore } from './stores/connection-store';
import { createShellsStore } from './stores/shells-store';
import { pickTransport } from './transports/pick-transport';
import { sendNotificationsToDesktop } from './stores/notify';

const picked = pickTransport();
const client = new EngineClient(picked.transport);
const room: Room = { client, connection: createConnectionStore(client), shells: createShellsStore(client), desktop: picked.desktop, problem: picked.problem };
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
