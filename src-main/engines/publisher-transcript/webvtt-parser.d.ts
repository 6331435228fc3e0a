// Types for webvtt-parser (a CommonJS package without its own): the part the publisher-transcript
// engine reads (docs/decisions.md "Subtitle parsers").
declare module 'webvtt-parser' {
  export type VttNode =
    | { type: 'text'; value: string }
    | { type: 'timestamp'; value: number }
    | { type: 'object'; name: string; classes: string[]; value?: string; children: VttNode[] };
  export interface VttCue {
    id: string;
    startTime: number;
    endTime: number;
    text: string;
    tree: { children: VttNode[] };
  }
  export interface VttParseError { message: string; line: number; col?: number }
  export class WebVTTParser {
    constructor(entities?: Record<string, string>);
    parse(input: string, mode?: 'metadata' | 'chapters'): { cues: VttCue[]; errors: VttParseError[]; styles: unknown[] };
  }
  const webvtt: { WebVTTParser: typeof WebVTTParser };
  export default webvtt;
}
