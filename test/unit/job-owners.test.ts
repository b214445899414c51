import { liveClientIds } from '../../src/resilience/job-owners';

describe('liveClientIds', () => {
  it('reads the id of every client line of CLIENT LIST, and nothing else', () => {
    const list = [
      'id=7 addr=127.0.0.1:50000 laddr=127.0.0.1:6379 fd=8 name= age=3 idle=0 flags=N db=0 sub=0 psub=0 ssub=0 multi=-1',
      'id=12 addr=127.0.0.1:50002 laddr=127.0.0.1:6379 fd=9 name=bull:Y29tcGxldGlvbnM= age=1 idle=1 flags=N db=0 qbuf-free=0 redir=-1',
      '',
    ].join('\n');
    expect([...liveClientIds(list)]).toEqual(['7', '12']);
  });
});
