/**
 * Referrals (docs/referrals.md): each wallet may own one
 * code; a wallet may apply another wallet's code once, before its first trade. At every fill a
 * referee pays as a taker, `config.referralRebateBps` of that fee goes to the referrer's
 * portfolio 0 (engine/flows/referrals.ts). Engine state, in snapshots.
 */
export type ReferralLink = { readonly referrer: string; readonly code: string };

export class ReferralActor {
  /** code -> the wallet that owns it, in the order created. */
  readonly owners = new Map<string, string>();
  /** wallet -> its code. */
  readonly codes = new Map<string, string>();
  /** referee -> its referrer and the code it applied, in the order applied. */
  readonly links = new Map<string, ReferralLink>();

  addCode(owner: string, code: string): void {
    this.owners.set(code, owner);
    this.codes.set(owner, code);
  }

  link(referee: string, referrer: string, code: string): void {
    this.links.set(referee, { referrer, code });
  }

  /** The referrer of `referee`, or undefined. */
  referrerOf(referee: string): string | undefined {
    return this.links.get(referee)?.referrer;
  }
}
