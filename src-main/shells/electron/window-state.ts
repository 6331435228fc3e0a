// The window comes back where the user left it (docs/desktop.md, "Window"): size, position and
// maximised, read from a small file in the data folder. A saved position on a display that is no
// longer there (a laptop undocked) is moved onto the display it overlaps most, or the nearest
// one, so the window never opens off-screen. Pure: the adapter passes in the displays.
import { z } from 'zod';

export interface Rect { x: number; y: number; width: number; height: number }

export interface SavedWindowState {
  /** The normal (not maximised) bounds, in screen coordinates. */
  bounds: Rect;
  maximized: boolean;
}

export interface WindowPlacement {
  /** Without x and y the window is centred on the primary display (Electron's default). */
  bounds: { x?: number; y?: number; width: number; height: number };
  maximized: boolean;
}

export const DEFAULT_SIZE = { width: 1100, height: 760 } as const;
export const MIN_SIZE = { width: 640, height: 480 } as const;

const finite = z.number().finite();
const rect = z.object({ x: finite, y: finite, width: finite.positive(), height: finite.positive() });
export const savedWindowState = z.object({ bounds: rect, maximized: z.boolean() });

/** Where to open the window: the saved state made to fit the displays there are now. */
export function placeWindow(saved: SavedWindowState | null, workAreas: readonly Rect[]): WindowPlacement {
  if (!saved || workAreas.length === 0) return { bounds: { ...DEFAULT_SIZE }, maximized: saved?.maximized ?? false };
  const area = displayFor(saved.bounds, workAreas);
  const width = clamp(Math.round(saved.bounds.width), Math.min(MIN_SIZE.width, area.width), area.width);
  const height = clamp(Math.round(saved.bounds.height), Math.min(MIN_SIZE.height, area.height), area.height);
  const x = clamp(Math.round(saved.bounds.x), area.x, area.x + area.width - width);
  const y = clamp(Math.round(saved.bounds.y), area.y, area.y + area.height - height);
  return { bounds: { x, y, width, height }, maximized: saved.maximized };
}

/** The work area the window overlaps most; with no overlap at all, the one whose centre is nearest. */
export function displayFor(bounds: Rect, workAreas: readonly Rect[]): Rect {
  let best = workAreas[0];
  let bestOverlap = -1;
  for (const area of workAreas) {
    const overlap = overlapArea(bounds, area);
    if (overlap > bestOverlap) { best = area; bestOverlap = overlap; }
  }
  if (bestOverlap > 0) return best;
  const cx = bounds.x + bounds.width / 2;
  const cy = bounds.y + bounds.height / 2;
  let nearest = workAreas[0];
  let nearestDistance = Infinity;
  for (const area of workAreas) {
    const d = Math.hypot(area.x + area.width / 2 - cx, area.y + area.height / 2 - cy);
    if (d < nearestDistance) { nearest = area; nearestDistance = d; }
  }
  return nearest;
}

function overlapArea(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function clamp(value: number, min: number, max: number): number {
  return Math.max(min, Math.min(max, value));
}
