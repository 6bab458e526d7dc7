internal import COpenSSL
internal import FoundationEssentials

/// An X.509 certificate minted by `TestPKI.issue`, together with its private key.
///
/// Immutable after `init`: the wrapped `X509` is only read afterwards (as the
/// issuer of further certificates), which is why the class is
/// `@unchecked Sendable`. The `X509` is freed in `deinit`.
public final class TestCertificate: @unchecked Sendable {
    /// The certificate in DER.
    public let der: [UInt8]
    /// The certificate's own private key (the one matching its public key).
    public let key: TestKey
    /// The specification the certificate was issued from.
    public let spec: CertificateSpec

    /// The owned `X509`, kept to name the issuer and derive the
    /// authorityKeyIdentifier of certificates this one signs.
    let x509: OpaquePointer

    /// Takes ownership of a signed `x509` whose public key belongs to `key`.
    init(owning x509: OpaquePointer, key: TestKey, spec: CertificateSpec) {
        self.x509 = x509
        self.key = key
        self.spec = spec
        self.der = OpenSSL.der("i2d_X509") { i2d_X509(x509, $0) }
    }

    deinit {
        X509_free(x509)
    }

    /// `-----BEGIN CERTIFICATE-----\n`, base64 in 64-character lines, `\n-----END CERTIFICATE-----\n`.
    public var pem: String {
        PEM.encode(der, label: "CERTIFICATE")
    }

    /// Standard base64 (with padding, no line breaks) of `der`, as in a JWS `x5c` entry.
    public var base64: String {
        Data(der).base64EncodedString()
    }
}
