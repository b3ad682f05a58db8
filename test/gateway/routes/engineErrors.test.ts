/**
 * The one mapping from engine rejections to HTTP: every result code of engine/codes.ts
 * maps to the status and code its kind names, with the code in details.reason.
 */
import t from 'tap';
import { ResultCodes, reject, type ResultCode } from '../../../engine/codes.ts';
import { engineError, engineErrorStatus, resultOrError } from '../../../gateway/routes/engineErrors.ts';
import { errorCodes } from '../../../gateway/http/errors.ts';

const expected = { invalid: 'invalid_argument', precondition: 'failed_precondition', not_found: 'not_found', forbidden: 'permission_denied' } as const;

t.test('every engine code maps by its kind, keeping its message and details', async (t) => {
  for (const code of Object.keys(ResultCodes) as ResultCode[]) {
    if (code === 'ok') continue;
    const spec = ResultCodes[code];
    const reply = engineError(reject(code, { seriesId: '0xab' }));
    const want = expected[spec.kind as keyof typeof expected];
    t.same(reply.error, { code: want, message: spec.message, details: { reason: code, seriesId: '0xab' } }, code);
    t.equal(engineErrorStatus(reject(code)), errorCodes[want].status, `${code} status`);
  }
});

t.test('options replace the message and add details', async (t) => {
  const reply = engineError(reject('unknown_portfolio', { portfolioId: 3 }), { message: 'Portfolio not found: 3', details: { error: 'OrderValidationError' } });
  t.same(reply.error, { code: 'not_found', message: 'Portfolio not found: 3', details: { reason: 'unknown_portfolio', portfolioId: 3, error: 'OrderValidationError' } });
  t.same(engineError(reject('insufficient_margin')).error.details, { reason: 'insufficient_margin' });
});

t.test('resultOrError', async (t) => {
  t.same(resultOrError({ ok: true, value: { portfolioId: 4 }, events: [] }, (v) => (v as { portfolioId: number }).portfolioId), { ok: true, value: 4 });
  const r = resultOrError({ ok: false, rejection: reject('oi_cap'), events: [] }, () => 0);
  t.equal(r.ok, false);
  if (!r.ok) t.equal(r.error.error.code, 'failed_precondition');
});
