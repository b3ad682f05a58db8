/** The SIWE (EIP-4361) message of the interface ("Login by SIWE"), lines joined by \n. */
export type SiweFields = {
  readonly domain: string;
  readonly address: string;
  readonly statement: string;
  readonly uri: string;
  readonly chainId: number;
  readonly nonce: string;
  readonly issuedAt: string;
  readonly expirationTime?: string;
};

export function siweMessage(f: SiweFields): string {
  return [
    `${f.domain} wants you to sign in with your Ethereum account:`,
    f.address,
    '',
    f.statement,
    '',
    `URI: ${f.uri}`,
    'Version: 1',
    `Chain ID: ${f.chainId}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt}`,
    ...(f.expirationTime !== undefined ? [`Expiration Time: ${f.expirationTime}`] : []),
  ].join('\n');
}
