import { fitRequest } from '../../src/pipeline/fit-request';
import { anthropicProvider } from '../../src/providers/anthropic/provider';
import { preparedCompletion } from '../helpers/prepared-completion';
import { routable } from '../helpers/routable-model';

const prepared = preparedCompletion;

describe('fitRequest', () => {
  it("sends the provider's model name and keeps what the model supports", () => {
    const { request, notes } = fitRequest(prepared({ n: 2, presence_penalty: 0.5, temperature: 1.5 }), routable({ namespace: 'gpt-x-2026' }), {});
    expect(request).toMatchObject({ model: 'gpt-x-2026', n: 2, presence_penalty: 0.5, temperature: 1.5 });
    expect(notes).toEqual([]);
  });

  it('leaves out n and penalties the model does not support, and says so', () => {
    const model = routable({ model: 'plain', supports: { ...routable().supports, n: false, penalties: false } });
    const { request, notes } = fitRequest(prepared({ n: 3, frequency_penalty: 1, presence_penalty: 0 }), model, {});
    expect(request).not.toHaveProperty('n');
    expect(request).not.toHaveProperty('frequency_penalty');
    expect(request).not.toHaveProperty('presence_penalty');
    expect(notes).toEqual(['Not supported by plain and left out: n, frequency_penalty.']);
  });

  it("brings temperature into the provider's range (Anthropic's is 0..1)", () => {
    const { request, notes } = fitRequest(prepared({ temperature: 1.7 }), routable({ model: 'claude-x', provider: 'anthropic' }), anthropicProvider);
    expect(request.temperature).toBe(1);
    expect(notes).toEqual(['temperature lowered from 1.7 to 1, the highest claude-x accepts.']);
  });
});
