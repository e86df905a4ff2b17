import { useMemo } from 'react';
import QRCode from 'qrcode';

/**
 * `text` as a QR code a phone's camera reads: the modules made by the `qrcode` library (error correction M),
 * drawn as one SVG path, dark on white whatever the scheme (a camera wants the contrast), with a quiet zone.
 */
export function QrCode(props: { text: string; label: string }): React.JSX.Element {
  const { size, path } = useMemo(() => {
    const { modules } = QRCode.create(props.text, { errorCorrectionLevel: 'M' });
    let d = '';
    for (let y = 0; y < modules.size; y++) {
      for (let x = 0; x < modules.size; x++) if (modules.get(y, x)) d += `M${x + 4} ${y + 4}h1v1h-1z`;
    }
    return { size: modules.size + 8, path: d };
  }, [props.text]);
  return (
    <svg className="qr-code" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={props.label} data-testid="qr-code" shapeRendering="crispEdges">
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}
