/**
 * Venue alerts (extensions.md "Admin monitoring stream", `venue@alerts`): any part of the
 * gateway raises one here (MMP trips, slow-consumer closes, rate-limit storms, journal errors,
 * recovery; later e.g. bad debt from liquidations) and the monitoring stream sends it to the
 * subscribed admins. The last `keep` alerts are kept, so that an admin who subscribes after an
 * alert (the recovery alert at start, say) still receives it.
 */
export const alertSeverities = ['info', 'warning', 'critical'] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

/** The kinds raised today; others may add theirs (`bad_debt`, ...). */
export type AlertKind = 'mmp_trip' | 'slow_consumer' | 'rate_limit_storm' | 'journal_error' | 'recovery' | 'bad_debt' | (string & {});

export type AlertInput = {
  readonly kind: AlertKind;
  readonly severity?: AlertSeverity;
  readonly message: string;
  readonly details?: Readonly<Record<string, unknown>> | null;
};

export type Alert = {
  /** Increasing from 1 per process: a client that sees one twice (recent alerts on subscribe) drops it. */
  readonly id: number;
  readonly kind: AlertKind;
  readonly severity: AlertSeverity;
  readonly message: string;
  readonly details: Readonly<Record<string, unknown>> | null;
  /** Unix ms (the venue's wall clock). */
  readonly timestamp: number;
};

export class AlertBus {
  private readonly listeners: ((a: Alert) => void)[] = [];
  private readonly kept: Alert[] = [];
  private nextId = 1;

  constructor(
    private readonly clock: () => number,
    private readonly keep = 50,
  ) {}

  /** Raise an alert; listeners that throw do not stop the others, nor the caller. */
  raise(input: AlertInput): Alert {
    const alert: Alert = { id: this.nextId++, kind: input.kind, severity: input.severity ?? 'warning', message: input.message, details: input.details ?? null, timestamp: this.clock() };
    this.kept.push(alert);
    if (this.kept.length > this.keep) this.kept.shift();
    for (const l of this.listeners) {
      try {
        l(alert);
      } catch {
        /* a broken listener must not break the raiser */
      }
    }
    return alert;
  }

  onAlert(listener: (a: Alert) => void): void {
    this.listeners.push(listener);
  }

  /** The last alerts, oldest first. */
  recent(): readonly Alert[] {
    return this.kept;
  }
}
