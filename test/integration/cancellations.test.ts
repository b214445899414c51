import IORedis from 'ioredis';
import { Cancellations } from '../../src/pipeline/cancellations';
import { cancelChannel } from '../../src/queue/replies';
import { TEST_REDIS_URL, uniqueSuffix } from '../helpers/test-database';
import { eventually } from '../helpers/completion-fixtures';

/**
 * A job handed out twice to one worker process runs twice there until one of the runs finds the other
 * holding the request's claim: both track the request, and a cancellation must reach the one that holds it,
 * whichever tracked first.
 */
describe('cancellations of a request two runs track', () => {
  const prefix = `sytest_cancel_${uniqueSuffix()}`;
  const subscriber = new IORedis(TEST_REDIS_URL);
  const publisher = new IORedis(TEST_REDIS_URL);
  const cancellations = new Cancellations(subscriber, prefix);

  beforeAll(() => cancellations.start());
  afterAll(async () => {
    subscriber.disconnect();
    publisher.disconnect();
  });

  it('reach every run tracking it, and one run released leaves the other tracked', async () => {
    const first = cancellations.track('req-a');
    const second = cancellations.track('req-a');
    second.release();
    await publisher.publish(cancelChannel(prefix), 'req-a');
    await eventually(() => first.signal.aborted || undefined);
    expect(second.signal.aborted).toBe(false);
    first.release();
  });

  it('abort both runs when both track it', async () => {
    const first = cancellations.track('req-b');
    const second = cancellations.track('req-b');
    await publisher.publish(cancelChannel(prefix), 'req-b');
    await eventually(() => (first.signal.aborted && second.signal.aborted) || undefined);
    first.release();
    second.release();
  });
});
