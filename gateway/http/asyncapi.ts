/**
 * A registry of WebSocket channels and messages that the stream layers fill in, and the
 * AsyncAPI 3.0 document generated from it (served at `/asyncapi/json`). Like the REST
 * routes, channel payloads are TypeBox schemas declared beside the code that sends them.
 * Every channel names the servers (streams) it lives on.
 */
import type { TSchema } from '@sinclair/typebox';
import { toJsonSchema, type JsonSchema } from './jsonSchema.ts';

export type MessageDefinition = {
  readonly summary?: string;
  readonly description?: string;
  readonly payload: TSchema;
};

export type ChannelDefinition = {
  /** Address as clients write it, e.g. `{symbol}@ticker`, with `{name}` parameters. */
  readonly address: string;
  readonly title?: string;
  readonly description?: string;
  /** Description of each `{name}` in the address. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** Names of the servers (streams) the channel lives on; a channel is offered on no other. */
  readonly servers: readonly string[];
  /** Messages the server sends on this channel. */
  readonly sends?: Readonly<Record<string, MessageDefinition>>;
  /** Messages the server accepts on this channel. */
  readonly receives?: Readonly<Record<string, MessageDefinition>>;
};

export type ServerDefinition = {
  /** host[:port]; `{host}` lets clients fill their base URL. */
  readonly host: string;
  readonly protocol: 'ws' | 'wss';
  /** e.g. `/ws/public`. */
  readonly pathname?: string;
  readonly description?: string;
};

export type AsyncApiInfo = { readonly title: string; readonly version: string; readonly description?: string };

export type AsyncApiRegistry = {
  addServer(name: string, server: ServerDefinition): void;
  /** Throws when the id is taken: two layers must not describe one channel twice. */
  addChannel(id: string, channel: ChannelDefinition): void;
  document(info: AsyncApiInfo): Record<string, unknown>;
};

const idPattern = /^[A-Za-z0-9_.-]+$/;

export function createAsyncApiRegistry(): AsyncApiRegistry {
  const servers = new Map<string, ServerDefinition>();
  const channels = new Map<string, ChannelDefinition>();
  return {
    addServer(name, server) {
      if (!idPattern.test(name) || servers.has(name)) throw new Error(`asyncapi: bad or duplicate server name ${name}`);
      servers.set(name, server);
    },
    addChannel(id, channel) {
      if (!idPattern.test(id) || channels.has(id)) throw new Error(`asyncapi: bad or duplicate channel id ${id}`);
      for (const name of [...Object.keys(channel.sends ?? {}), ...Object.keys(channel.receives ?? {})]) {
        if (!idPattern.test(name)) throw new Error(`asyncapi: bad message name ${name} in ${id}`);
      }
      if (channel.servers.length === 0) throw new Error(`asyncapi: channel ${id} names no server`);
      channels.set(id, channel);
    },
    document(info) {
      const schemas: Record<string, JsonSchema> = {};
      const messages: Record<string, JsonSchema> = {};
      const outChannels: Record<string, JsonSchema> = {};
      const operations: Record<string, JsonSchema> = {};
      for (const [id, ch] of channels) {
        const channelMessages: Record<string, JsonSchema> = {};
        const add = (direction: 'send' | 'receive', defs: Readonly<Record<string, MessageDefinition>> | undefined): void => {
          if (defs === undefined || Object.keys(defs).length === 0) return;
          const refs: JsonSchema[] = [];
          for (const [name, def] of Object.entries(defs)) {
            const key = `${id}.${name}`;
            const message: JsonSchema = { name, payload: toJsonSchema(def.payload, schemas, '#/components/schemas/') };
            if (def.summary !== undefined) message['summary'] = def.summary;
            if (def.description !== undefined) message['description'] = def.description;
            messages[key] = message;
            channelMessages[name] = { $ref: `#/components/messages/${key}` };
            refs.push({ $ref: `#/channels/${id}/messages/${name}` });
          }
          operations[`${id}.${direction}`] = { action: direction, channel: { $ref: `#/channels/${id}` }, messages: refs };
        };
        add('send', ch.sends);
        add('receive', ch.receives);
        for (const name of ch.servers) if (!servers.has(name)) throw new Error(`asyncapi: channel ${id} names unknown server ${name}`);
        const c: JsonSchema = { address: ch.address, messages: channelMessages, servers: ch.servers.map((name) => ({ $ref: `#/servers/${name}` })) };
        if (ch.title !== undefined) c['title'] = ch.title;
        if (ch.description !== undefined) c['description'] = ch.description;
        if (ch.parameters !== undefined) c['parameters'] = Object.fromEntries(Object.entries(ch.parameters).map(([k, d]) => [k, { description: d }]));
        outChannels[id] = c;
      }
      const doc: Record<string, unknown> = {
        asyncapi: '3.0.0',
        info: { title: info.title, version: info.version, ...(info.description === undefined ? {} : { description: info.description }) },
      };
      if (servers.size > 0) doc['servers'] = Object.fromEntries([...servers].map(([name, s]) => [name, { ...s }]));
      doc['channels'] = outChannels;
      doc['operations'] = operations;
      doc['components'] = { schemas, messages };
      return doc;
    },
  };
}
