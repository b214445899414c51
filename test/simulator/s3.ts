import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small S3 speaking the REST wire format for the calls Switchyard's S3 file store makes (path-style
 * addressing): PutObject, GetObject, HeadObject, DeleteObject, with S3's XML errors. It checks that a
 * request is signed (SigV4 `Authorization`) and that the body matches its declared `Content-Length`;
 * an `aws-chunked` body (the SDK's streaming checksums) is decoded.
 */
export interface S3Call {
  method: string;
  bucket: string;
  key: string;
  headers: IncomingMessage['headers'];
}

export interface S3Simulator {
  endpoint: string;
  bucket: string;
  objects: Map<string, Buffer>;
  calls: S3Call[];
  close(): Promise<void>;
}

function xmlError(res: ServerResponse, status: number, { code, message, resource }: { code: string; message: string; resource: string }): void {
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><Resource>${resource}</Resource><RequestId>${randomUUID()}</RequestId></Error>`;
  res.writeHead(status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(body), 'x-amz-request-id': randomUUID() });
  res.end(body);
}

/** `aws-chunked`: `<hex size>;chunk-signature=...\r\n<data>\r\n` ... `0\r\n<trailers>\r\n\r\n`. */
function decodeAwsChunked(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd === -1) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1').split(';')[0] ?? '0', 16);
    if (!size) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  const chunked =
    String(req.headers['content-encoding'] ?? '').includes('aws-chunked') || String(req.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-');
  return chunked ? decodeAwsChunked(raw) : raw;
}

const etagOf = (bytes: Buffer) => `"${createHash('md5').update(bytes).digest('hex')}"`;

export async function startS3Simulator(bucket = 'switchyard-files'): Promise<S3Simulator> {
  const objects = new Map<string, Buffer>();
  const calls: S3Call[] = [];
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://s3.local');
    const [, bucketName = '', ...keyParts] = url.pathname.split('/');
    const key = decodeURIComponent(keyParts.join('/'));
    const method = req.method ?? 'GET';
    calls.push({ method, bucket: bucketName, key, headers: req.headers });
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 '))
      return xmlError(res, 403, { code: 'AccessDenied', message: 'Missing SigV4 signature.', resource: url.pathname });
    if (bucketName !== bucket) return xmlError(res, 404, { code: 'NoSuchBucket', message: 'The specified bucket does not exist.', resource: url.pathname });
    if (method === 'PUT') {
      const body = await readBody(req);
      const declared = Number(req.headers['x-amz-decoded-content-length'] ?? req.headers['content-length']);
      if (declared !== body.length)
        return xmlError(res, 400, {
          code: 'IncompleteBody',
          message: 'You did not provide the number of bytes specified by the Content-Length HTTP header.',
          resource: url.pathname,
        });
      objects.set(key, body);
      res.writeHead(200, { etag: etagOf(body), 'x-amz-request-id': randomUUID(), 'content-length': '0' });
      return void res.end();
    }
    const object = objects.get(key);
    if (method === 'DELETE') {
      objects.delete(key);
      res.writeHead(204, { 'x-amz-request-id': randomUUID() });
      return void res.end();
    }
    if (!object) return xmlError(res, 404, { code: 'NoSuchKey', message: 'The specified key does not exist.', resource: url.pathname });
    const headers = {
      'content-type': 'application/octet-stream',
      'content-length': String(object.length),
      etag: etagOf(object),
      'last-modified': new Date().toUTCString(),
      'x-amz-request-id': randomUUID(),
    };
    if (method === 'HEAD') {
      res.writeHead(200, headers);
      return void res.end();
    }
    if (method === 'GET') {
      res.writeHead(200, headers);
      return void res.end(object);
    }
    return xmlError(res, 405, { code: 'MethodNotAllowed', message: 'The specified method is not allowed against this resource.', resource: url.pathname });
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => xmlError(res, 500, { code: 'InternalError', message: String(err), resource: req.url ?? '' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    objects,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
