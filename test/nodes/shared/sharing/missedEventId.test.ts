/**
 * The id a missed event's report names it by (missedEventId.ts): the body's own delivery id, else
 * the message's id, else the holder's delivery id (the spec shows no delivery id on an event).
 */
import { deliveryIdOf } from '../../../../nodes/shared/readDelivery';
import { missedEventId } from '../../../../nodes/shared/sharing/missedEventId';
import { sample } from '../../../fixtures/events';

test("the body's deliveryId, as the sender wrote it", () => {
	const body = { ...sample('message.read'), deliveryId: 'dlv_01J7 3' };
	expect(missedEventId(body, deliveryIdOf(JSON.stringify(body)))).toBe('dlv_01J7 3');
});

test('a message event without one: its message id, as the item gives it (messageId)', () => {
	const body = sample('message.read') as unknown as { message: { id: string } };
	expect(body.message.id).toEqual(expect.any(String));
	expect(missedEventId(body, 'ledger-1')).toBe(`message ${body.message.id}`);
	expect(missedEventId({ ...body, deliveryId: '' }, 'ledger-1')).toBe(`message ${body.message.id}`);
});

test("any other event: the holder's delivery id (the hash its log and record use)", () => {
	const body = sample('number.disconnected');
	const ledgerId = deliveryIdOf(JSON.stringify(body));
	expect(missedEventId(body, ledgerId)).toBe(`delivery ${ledgerId}`);
	expect(missedEventId('not an object', 'ledger-2')).toBe('delivery ledger-2');
});
