import { X509Certificate } from 'node:crypto';

/**
 * A self-signed CA certificate (EC P-256, "CN=Baton test CA", SAN www.example.com, valid until
 * 2126), made once with `openssl req -x509`: node:crypto parses certificates but cannot issue one.
 * Only its form matters to the tests that use it; no key goes with it.
 */
export const TEST_CA_PEM = `
-----BEGIN CERTIFICATE-----
MIIBpDCCAUmgAwIBAgIUe0bFLz+rPYUOapZNr+WcA5pHx6YwCgYIKoZIzj0EAwIw
GDEWMBQGA1UEAwwNQmF0b24gdGVzdCBDQTAgFw0yNjExMjcwMTQ3MzNaGA8yMTI2
MTEwMzAxNDczM1owGDEWMBQGA1UEAwwNQmF0b24gdGVzdCBDQTBZMBMGByqGSM49
AgEGCCqGSM49AwEHA0IABMCEz4sEmrEXGfXyIQU6H8GQVVEmQPPiy+S1uhddYXX/
9fcEPuC68KKqLm/VavzjImHb1DPUv8buNygVnkoxEhSjbzBtMB0GA1UdDgQWBBT9
PF65sS9FViXuA0o99rqrcdZb2DAfBgNVHSMEGDAWgBT9PF65sS9FViXuA0o99rqr
cdZb2DAaBgNVHREEEzARgg93d3cuZXhhbXBsZS5jb20wDwYDVR0TAQH/BAUwAwEB
/zAKBggqhkjOPQQDAgNJADBGAiEA1RvY3GrgC1aEqNXZUiLxrpYXCwZbJepEPx8w
DvPj9VECIQDgkQskGe0LCitJyhyfFi0sSZW+Dv38ihsgUb74/w/kUg==
-----END CERTIFICATE-----
`.trim();

/** The same certificate as CES sends it in `tlsConfig.caCerts[].cert`: DER bytes, base64-encoded. */
export const TEST_CA_DER_BASE64 = new X509Certificate(TEST_CA_PEM).raw.toString('base64');
