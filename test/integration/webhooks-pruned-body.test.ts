import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../server/modules/webhooks/dispatcher';
import { startLocalReceiver, type LocalReceiver } from '../support/local-receiver';
import { createTestApp, type TestContext } from '../support/app';
import { attemptsOf, deliveriesOf, paidSession, testDispatcher, until } from '../support/webhooks';

/**
 * A delivery whose event body `db:prune` emptied (a redelivery queued while the prune ran) is
 * never sent with an empty body: the dispatcher records it as failed, saying why.
 */
let t: TestContext;
let receiver: LocalReceiver;
let dispatcher: Dispatcher | undefined;

beforeEach(async () => {
  t = await createTestApp();
  receiver = await startLocalReceiver();
});
afterEach(async () => {
  await dispatcher?.stop();
  await receiver.close();
  await t.close();
});

describe('a delivery of a pruned event body', () => {
  it('fails with "event body past retention" and nothing is POSTed', async () => {
    const m = await t.merchant(undefined, receiver.url);
    const { event } = await paidSession(t, m.api_key);
    await t.database.db.updateTable('events').set({ payload: '' }).where('id', '=', event.id).execute();
    dispatcher = testDispatcher(t);
    await dispatcher.start();
    await until('the delivery is decided', async () => (await deliveriesOf(t, event.id))[0]?.status !== 'pending');
    await dispatcher.idle();
    expect(receiver.received).toHaveLength(0);
    expect(await deliveriesOf(t, event.id)).toMatchObject([{ status: 'failed', last_error: 'event body past retention', next_attempt_at: null }]);
    expect(await attemptsOf(t, event.id)).toMatchObject([{ outcome: 'failed', error: 'event body past retention', status_code: null }]);
  });
});
