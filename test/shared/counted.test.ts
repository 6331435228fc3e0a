// Counts in the run log read as English: "1 segment", "0 speakers", never "1 segments" (issue 20 item 8).
import { describe, expect, it } from 'vitest';
import { counted } from '../../src-shared/runs/counted';

describe('counted', () => {
  it('puts the noun in the plural except for one', () => {
    expect([counted(0, 'segment'), counted(1, 'segment'), counted(2, 'speaker'), counted(1, 'moment')]).toEqual(['0 segments', '1 segment', '2 speakers', '1 moment']);
    expect(counted(3, 'child', 'children')).toBe('3 children');
  });
});
