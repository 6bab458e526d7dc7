package import AppStoreTestData
internal import FoundationEssentials

/// The test suites' fixtures: X.509 certificates and compact JWS tokens shaped like Apple's
/// App Store ones, made by `AppStoreTestData` (what `jwsinspect mint` ships) and trapping on
/// its errors, since a fixture's failure is a programming error.
package enum TestPKI {
    /// Apple's marker extension on App Store receipt-signing leaf certificates.
    package static let leafOID = CertificateIssuer.leafOID
    /// Apple's marker extension on the WWDR intermediate certificate.
    package static let intermediateOID = CertificateIssuer.intermediateOID
    /// The organisation (O) of every subject this module issues.
    package static let organization = CertificateIssuer.organization
    /// The country (C) of every subject this module issues.
    package static let country = CertificateIssuer.country

    /// Issues a certificate for `key` (default: a fresh P-256 key) signed by `issuer` (nil =
    /// self-signed with `key`): `CertificateIssuer.issue`, which says what goes into it.
    package static func issue(_ spec: CertificateSpec, key: TestKey = .p256(), issuer: TestCertificate?)
        -> TestCertificate
    {
        TestCertificate(
            OpenSSL.must { try CertificateIssuer.issue(spec, key: key.privateKey, issuer: issuer?.issued) }, key: key)
    }

    /// Base64url without padding (RFC 4648 §5, as JWS uses it).
    package static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacing("+", with: "-")
        text = text.replacing("/", with: "_")
        while text.hasSuffix("=") {
            text.removeLast()
        }
        return text
    }

    /// Compact JWS: base64url(headerJSON).base64url(payloadJSON).base64url(signature),
    /// signature = key.signES256(ascii bytes of "h.p"). The JSON strings are used byte-exact (UTF-8).
    ///
    /// `key` must be a P-256 key.
    package static func compactJWS(headerJSON: String, payloadJSON: String, key: TestKey) -> String {
        compactJWS(headerJSON: headerJSON, payloadBytes: Array(payloadJSON.utf8), key: key)
    }

    /// Compact JWS over payload bytes that need not be UTF-8 (BOMs, UTF-16, invalid bytes).
    package static func compactJWS(headerJSON: String, payloadBytes: [UInt8], key: TestKey) -> String {
        let signingInput = base64URL(Array(headerJSON.utf8)) + "." + base64URL(payloadBytes)
        let signature = key.signES256(Array(signingInput.utf8))
        return signingInput + "." + base64URL(signature)
    }

    /// `value` as a JSON string literal (RFC 8259: quotes, backslash and control characters escaped).
    package static func jsonString(_ value: String) -> String {
        TestData.jsonString(value)
    }
}
