import { snippetOf } from '../../src/plugins/space-search/snippet';

describe('space-search snippets (the query terms as PostgreSQL stems them, in bold)', () => {
  it('marks every form of a stem, and a final y stemmed to i', () => {
    const text = 'Charging an electric vehicle in winter is slower. The battery charges less when cold; batteries warm up first.';
    expect(snippetOf(text, ['charg', 'electr', 'vehicl', 'winter', 'batteri'])).toBe(
      '**Charging** an **electric** **vehicle** in **winter** is slower. The **battery** **charges** less when cold; **batteries** warm up first.',
    );
  });

  it('does not mark a longer word that only begins like a stem, nor a short stem inside a word', () => {
    expect(snippetOf('A costume costs more. Use it as is.', ['cost', 'us'])).toBe('A costume **costs** more. Use it as is.');
  });

  it('reads a word as letters and digits with one apostrophe tail, whatever the script or the surrogates around it', () => {
    expect(snippetOf("Rock'n'roll chargers' charger's CHARGING’s 4x4 über-charged", ['charg', 'über', 'rock'])).toBe(
      "Rock'n'roll **chargers**' charger's CHARGING’s 4x4 **über**-**charged**",
    );
    expect(snippetOf('\uD835\uDC00charging \uD835 charges \uDC00costs 𝐀𝐁 Über Übers', ['charg', 'cost', 'über'])).toBe(
      '\uD835\uDC00charging \uD835 **charges** \uDC00**costs** 𝐀𝐁 **Über** **Übers**',
    );
  });

  it('gives at most two fragments of at most 35 words around the richest matches, joined by an ellipsis', () => {
    const filler = (n: number, word = 'filler') => Array.from({ length: n }, () => word).join(' ');
    const text = `${filler(60)} ferries leave at noon ${filler(60)} the night ferry leaves at ten ${filler(60)}`;
    const snippet = snippetOf(text, ['ferri', 'leav']);
    const fragments = snippet.split(' … ');
    expect(fragments).toHaveLength(2);
    for (const fragment of fragments) expect(fragment.split(' ').length).toBeLessThanOrEqual(35);
    expect(fragments[0]).toContain('**ferries** **leave**');
    expect(fragments[1]).toContain('**ferry** **leaves**');
  });

  it('collapses whitespace, and gives the opening words of a chunk found by its vector alone', () => {
    const text = `Line one\n\n   line   two ${Array.from({ length: 50 }, (_, i) => `w${i}`).join(' ')}`;
    const snippet = snippetOf(text, ['absent']);
    expect(snippet.startsWith('Line one line two w0')).toBe(true);
    expect(snippet.split(' ')).toHaveLength(35);
    expect(snippetOf('', ['x'])).toBe('');
  });
});
