// stopword ships no type declarations: the lists are arrays of words keyed by ISO 639-3 code.
declare module 'stopword' {
  const lists: Record<string, readonly string[] | ((...args: unknown[]) => unknown)>;
  export = lists;
}
