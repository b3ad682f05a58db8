/**
 * Referrals as the gateway reads them (architecture.md rule 6): a fold of `referral_code`,
 * `referral_applied`, `referral_rebate` and `trade` events, never engine state. Per wallet: its
 * code, who referred it, how many wallets it referred, the rebates it earned (COLLATERAL6) and
 * the volume its referees traded (notional, COLLATERAL6, counted on each side a referee took).
 */
import type { VenueEvent } from '../../engine/index.ts';

export type ReferralView = {
  code: string | null;
  referredBy: string | null;
  referees: number;
  rebatesEarned: bigint;
  volumeReferred: bigint;
};

type State = { wallets: [string, ReferralView][]; codes: [string, string][] };

export class ReferralBook {
  private readonly wallets = new Map<string, ReferralView>();
  /** code -> owner */
  private readonly codes = new Map<string, string>();

  private view(owner: string): ReferralView {
    let v = this.wallets.get(owner);
    if (v === undefined) this.wallets.set(owner, (v = { code: null, referredBy: null, referees: 0, rebatesEarned: 0n, volumeReferred: 0n }));
    return v;
  }

  apply(e: VenueEvent): void {
    switch (e.type) {
      case 'referral_code':
        this.view(e.owner).code = e.code;
        this.codes.set(e.code, e.owner);
        return;
      case 'referral_applied':
        this.view(e.owner).referredBy = e.referrer;
        this.view(e.referrer).referees++;
        return;
      case 'referral_rebate':
        this.view(e.referrer).rebatesEarned += e.amount;
        return;
      case 'trade': {
        if (this.codes.size === 0) return;
        for (const side of [e.taker, e.maker]) {
          const referrer = this.wallets.get(side)?.referredBy;
          if (referrer != null) this.view(referrer).volumeReferred += e.notional;
        }
        return;
      }
      default:
    }
  }

  /** A wallet's referral figures (all empty for a wallet never seen). */
  get(owner: string): Readonly<ReferralView> {
    return this.wallets.get(owner) ?? { code: null, referredBy: null, referees: 0, rebatesEarned: 0n, volumeReferred: 0n };
  }

  /** The wallet that owns `code`, or undefined. */
  ownerOf(code: string): string | undefined {
    return this.codes.get(code);
  }

  exportState(): State {
    return { wallets: [...this.wallets].map(([k, v]) => [k, { ...v }]), codes: [...this.codes] };
  }

  importState(state: State): void {
    this.wallets.clear();
    this.codes.clear();
    for (const [k, v] of state.wallets) this.wallets.set(k, { ...v });
    for (const [code, owner] of state.codes) this.codes.set(code, owner);
  }
}
