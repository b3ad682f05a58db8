// @ts-check
/**
 * Display formatting of the venue's fixed-point strings (docs/domain.md: WAD = 10^18).
 * Exact: the digits are cut from the integer, never through a float, so a price shows
 * what the venue holds.
 */

const WAD_DECIMALS = 18;

/**
 * A WAD integer string as a decimal with `places` digits, rounded half away from zero.
 * @param {string | null | undefined} wad
 * @param {number} places
 * @returns {string} '' for null or undefined
 */
export function wadFixed(wad, places) {
  if (wad === null || wad === undefined || wad === '') return '';
  let n = BigInt(wad);
  const negative = n < 0n;
  if (negative) n = -n;
  const cut = 10n ** BigInt(WAD_DECIMALS - places);
  const scaled = (n + cut / 2n) / cut;
  const text = scaled.toString().padStart(places + 1, '0');
  const whole = places === 0 ? text : text.slice(0, -places);
  const frac = places === 0 ? '' : `.${text.slice(-places)}`;
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${negative && scaled !== 0n ? '-' : ''}${grouped}${frac}`;
}

/**
 * A WAD ratio as a percentage: '0.55e18' -> '55.0%'.
 * @param {string | null | undefined} wad
 * @param {number} [places]
 */
export function wadPercent(wad, places = 1) {
  if (wad === null || wad === undefined || wad === '') return '';
  return `${wadFixed((BigInt(wad) * 100n).toString(), places)}%`;
}

const months = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/**
 * An expiry (Unix seconds) in the user-facing symbol's form, with its UTC time: '06JAN26 08:00'.
 * @param {number} unixSec
 */
export function expiryLabel(unixSec) {
  const d = new Date(unixSec * 1000);
  const day = String(d.getUTCDate()).padStart(2, '0');
  const hm = `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
  return `${day}${months[d.getUTCMonth()]}${String(d.getUTCFullYear() % 100).padStart(2, '0')} ${hm}`;
}

/**
 * A time of day (UTC) from a Unix-seconds number, a Unix-ms number or an ISO string.
 * @param {number | string} t
 */
export function timeOfDay(t) {
  const ms = typeof t === 'string' ? Date.parse(t) : t < 1e11 ? t * 1000 : t;
  return new Date(ms).toISOString().slice(11, 19);
}
