/**
 * Which URLs are the app's own renderer. Compared by exact parse (scheme, host with port, path), never by
 * prefix: `http://localhost:5173.evil.example/` and `file:///…/index.html.evil` start like ours and are not.
 * A fragment or query on our own page is fine (the renderer's routes).
 */
export function makeTrustedUrlCheck(expected: string): (url: string) => boolean {
  const want = new URL(expected);
  return (url: string) => {
    if (typeof url !== 'string' || url.length === 0 || url.length > 8192) return false;
    let got: URL;
    try {
      got = new URL(url);
    } catch {
      return false;
    }
    return got.protocol === want.protocol && got.host === want.host && got.pathname === want.pathname && got.username === '' && got.password === '';
  };
}

/** The sender of an IPC message as Electron describes it (IpcMainEvent), reduced to what is checked. */
export interface IpcSenderEvent {
  /** Null once the frame navigated away or was destroyed: deny. */
  senderFrame?: { url: string; parent?: unknown } | null;
}

/** Only the main frame of our own renderer may talk to the room: not an iframe, not another page. */
export function isTrustedSender(event: IpcSenderEvent, isTrustedUrl: (url: string) => boolean): boolean {
  const frame = event.senderFrame;
  if (!frame) return false;
  if (frame.parent) return false; // a subframe (WebFrameMain.parent is null only for the main frame)
  return isTrustedUrl(frame.url);
}
