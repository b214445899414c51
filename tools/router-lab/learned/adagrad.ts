/** Per-coordinate AdaGrad steps over a flat parameter array: suited to sparse, hashed features. */
export class AdaGrad {
  private readonly squares: Float64Array;

  constructor(
    readonly params: Float64Array,
    private readonly rate: number,
  ) {
    this.squares = new Float64Array(params.length).fill(1e-8);
  }

  /** Moves parameter `index` against `gradient`. */
  step(index: number, gradient: number): void {
    this.squares[index] += gradient * gradient;
    this.params[index] -= (this.rate * gradient) / Math.sqrt(this.squares[index]);
  }
}
