package import AppStoreTestData
internal import FoundationEssentials
internal import JWSInspectCore

/// An X.509 certificate minted by `TestPKI.issue` (through `AppStoreTestData`'s
/// `CertificateIssuer`), together with its private key.
package final class TestCertificate: Sendable {
    /// The certificate as issued, parsed by the core's `Certificate`.
    package let issued: IssuedCertificate
    /// The certificate's own private key (the one matching its public key).
    package let key: TestKey

    /// `issued`, whose key is `key`.
    package init(_ issued: IssuedCertificate, key: TestKey) {
        self.issued = issued
        self.key = key
    }

    /// The certificate in DER.
    package var der: [UInt8] { issued.der }
    /// The specification the certificate was issued from.
    package var spec: CertificateSpec { issued.spec }
    /// `-----BEGIN CERTIFICATE-----\n`, base64 in 64-character lines, `\n-----END CERTIFICATE-----\n`.
    package var pem: String { issued.pem }
    /// Standard base64 (with padding, no line breaks) of `der`, as in a JWS `x5c` entry.
    package var base64: String { issued.base64 }

    /// Calls `body` with the `X509*`, for receipts' `CMS_sign` (`Certificate.withUnsafeX509Pointer`).
    func withUnsafeX509Pointer<Result>(_ body: (OpaquePointer) -> Result) -> Result {
        issued.certificate.withUnsafeX509Pointer(body)
    }
}
