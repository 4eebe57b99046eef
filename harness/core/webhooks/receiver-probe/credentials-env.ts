/** Where a legacy receiver endpoint's credential comes from: an environment variable, so it never sits in a process list or a shell history. */
export const HMAC_SECRET_ENV = 'PROTO_COMPLY_RECEIVER_HMAC_SECRET';
export const BEARER_TOKEN_ENV = 'PROTO_COMPLY_RECEIVER_BEARER_TOKEN';
