/** The venue's typed client: REST (VenueClient), streams (VenueStream, DepthBook), signing helpers. docs/client.md. */
export { VenueClient, VenueError, type ApiKey, type VenueClientOptions, type PlaceRequest, type ReplaceRequest, type CancelRequest, type RawReply } from './venueClient.ts';
export { VenueStream, StreamError, type StreamOptions, type StreamPath, type Frame } from './stream.ts';
export { DepthBook, type Level } from './depthBook.ts';
export { siweMessage, type SiweFields } from './siwe.ts';
export { signServed, signedMessage, placeOrderBody, signPlaceOrder, signCancelOrder, signRfqQuote, signFillQuote, toViemMessage, toUnits, fromUnits, type ServedTypedData } from './signing.ts';
export type { RouteKey, Routes, InputOf, BodyOf, ReplyOf, CallArgs } from './routes.ts';
