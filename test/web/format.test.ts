/** The page's number formatting (web/format.js): exact digits from WAD strings. */
import t from 'tap';
import { expiryLabel, timeOfDay, wadFixed, wadPercent } from '../../web/format.js';

t.test('wadFixed', async (t) => {
  t.equal(wadFixed('2786190000000000000000', 2), '2,786.19');
  t.equal(wadFixed('2786195000000000000000', 2), '2,786.20', 'half rounds away from zero');
  t.equal(wadFixed('-297400000000000000', 3), '-0.297');
  t.equal(wadFixed('-100000000000000', 3), '0.000', 'no minus on a value that rounds to zero');
  t.equal(wadFixed('123456789012345678901234567890', 2), '123,456,789,012.35', 'beyond float precision, exact');
  t.equal(wadFixed('5000000000000000000', 0), '5');
  t.equal(wadFixed(null, 2), '');
});

t.test('wadPercent, expiryLabel, timeOfDay', async (t) => {
  t.equal(wadPercent('550000000000000000'), '55.0%');
  t.equal(wadPercent('1234500000000000000', 2), '123.45%');
  t.equal(expiryLabel(1767772800), '07JAN26 08:00');
  t.equal(timeOfDay(1767614400), '12:00:00', 'Unix seconds');
  t.equal(timeOfDay(1767614400123), '12:00:00', 'Unix ms');
  t.equal(timeOfDay('2026-01-05T12:00:01.000Z'), '12:00:01', 'ISO');
});
