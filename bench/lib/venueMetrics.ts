/**
 * Reading the venue's own Prometheus metrics (`GET /metrics` text) in a benchmark: where the
 * server's time went, as its operators would see it.
 */

/** One sample of the Prometheus text (`name{labels} value`), or 0 when absent. */
export function sample(text: string, name: string, labels = ''): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * Signed order entry since the metrics were last reset: mean time per stage
 * (`order_entry_stage_seconds`), engine apply and journal commit means, the mean request
 * time (request read to reply written) and the share of requests answered within 5 ms.
 * Means in µs; null when nothing was observed.
 */
export function orderEntryBreakdown(text: string) {
  const meanUs = (name: string, labels = '') => {
    const n = sample(text, `${name}_count`, labels);
    return n === 0 ? null : Math.round((sample(text, `${name}_sum`, labels) / n) * 1e6);
  };
  const route = 'route="/api/mm/orders/place",method="POST"';
  const requests = sample(text, 'http_request_duration_seconds_count', `{${route}}`);
  return {
    stagesMeanUs: {
      checks: meanUs('order_entry_stage_seconds', '{stage="checks"}'),
      signatures: meanUs('order_entry_stage_seconds', '{stage="signatures"}'),
      journal: meanUs('order_entry_stage_seconds', '{stage="journal"}'),
    },
    engineApplyMeanUs: meanUs('engine_command_apply_seconds', '{type="place"}'),
    journalCommitMeanUs: meanUs('journal_commit_seconds'),
    requestMeanUs: meanUs('http_request_duration_seconds', `{${route}}`),
    repliedWithin5msShare: requests === 0 ? null : Number((sample(text, 'http_request_duration_seconds_bucket', `{le="0.005",${route}}`) / requests).toFixed(4)),
  };
}
