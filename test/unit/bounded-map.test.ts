import { BoundedMap } from '../../src/auth/bounded-map';

describe('BoundedMap', () => {
  it('forgets the oldest entry past its size, counting a key set again as the newest', () => {
    const memory = new BoundedMap<string, number>(2);
    memory.set('a', 1);
    memory.set('b', 2);
    memory.set('a', 3);
    memory.set('c', 4);
    expect([...memory.entries()]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});
