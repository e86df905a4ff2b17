// The page's main world side of the harness's contextBridge: what the preload exposes appears on `window`,
// copied and frozen, with its functions proxied (world-bridge.js). Injected before the page's own scripts.
/* eslint-disable */
(function electronMainWorld() {
  if (window !== window.top) return;
  const bridge = harnessBridge('main', 'preload');
  bridge.on('expose', ({ key, value }) => {
    if (Object.prototype.hasOwnProperty.call(window, key)) return;
    Object.defineProperty(window, key, { value: bridge.decode(value), enumerable: true, configurable: false, writable: false });
  });
  bridge.send('ready', {});
})();
