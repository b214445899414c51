import { stepOf } from '../../src/services/logs/step-kind';

/** What the logs API says a log is, from the payload its row keeps (pipeline/log-rows.ts writes it). */
describe('stepOf', () => {
  const child = { parent_id: '00000000-0000-4000-8000-000000000001', namespace: null };

  it("is null for a request's own log", () => {
    expect(stepOf({ parent_id: null, payload: { step: 'model' }, namespace: 'gpt-4.1-mini' })).toBeNull();
  });

  it('reads a plugin run and a model call', () => {
    expect(stepOf({ ...child, payload: { step: 'plugin', plugin: 'web-search', query: '[masked]' } })).toEqual({ kind: 'plugin', plugin: 'web-search' });
    expect(stepOf({ ...child, payload: { step: 'model', model: 'gpt-4.1-mini', retry: 1 } })).toEqual({ kind: 'model', plugin: null });
  });

  it('reads a child row written before steps were marked as a model call', () => {
    expect(stepOf({ ...child, payload: { model: 'gpt-4o-mini', provider: 'openai', retry: 0 } })).toEqual({ kind: 'model', plugin: null });
    expect(stepOf({ ...child, payload: {} })).toEqual({ kind: 'model', plugin: null });
    expect(stepOf({ ...child, payload: null })).toEqual({ kind: 'model', plugin: null });
  });

  it('names a plugin step without its id by the row’s namespace', () => {
    expect(stepOf({ ...child, namespace: 'space-search', payload: { step: 'plugin' } })).toEqual({ kind: 'plugin', plugin: 'space-search' });
  });
});
