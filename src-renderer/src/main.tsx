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

const client = new EngineClient(pickTransport());
const room: Room = { client, connection: createConnectionStore(client), shells: createShellsStore(client) };

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
