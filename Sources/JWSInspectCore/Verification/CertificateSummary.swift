package import FoundationEssentials

/// What a chain report shows about one `x5c` certificate.
package struct CertificateSummary: Sendable {
    /// Index in `x5c` (0 = leaf).
    package let index: Int
    /// "leaf", "intermediate", "root (not used for trust)", or "extra".
    package let role: String
    package let subject: String
    package let issuer: String
    package let serialHex: String
    package let notBefore: Date?
    package let notAfter: Date?
    /// SHA-256 of the DER bytes, lowercase hex.
    package let sha256: String
    /// Public key, e.g. "EC P-256".
    package let key: String
    /// Extensions under Apple's OID arc, dotted.
    package let appleOIDs: [String]
    /// The name of the Apple certificate this is, when recognised by fingerprint.
    package let knownAs: String?
    /// Whether it is byte-identical to one of the trusted roots in use.
    package let isTrustedRoot: Bool
    /// Set when the entry could not be decoded or parsed; the other fields are then empty.
    package let error: String?

    init(index: Int, role: String, certificate: Certificate, trustedRootDERs: [[UInt8]]) {
        self.index = index
        self.role = role
        self.subject = certificate.subject
        self.issuer = certificate.issuer
        self.serialHex = certificate.serialHex
        self.notBefore = certificate.notBefore
        self.notAfter = certificate.notAfter
        self.sha256 = certificate.sha256Fingerprint
        self.key = certificate.publicKey?.summary ?? "undecodable key"
        self.appleOIDs = certificate.extensionOIDs.filter { $0.hasPrefix(AppleCertificates.appleOIDArc) }
        self.knownAs = AppleCertificates.known[sha256]?.name
        self.isTrustedRoot = trustedRootDERs.contains(certificate.derBytes)
        self.error = nil
    }

    init(index: Int, role: String, error: String) {
        self.index = index
        self.role = role
        self.subject = ""
        self.issuer = ""
        self.serialHex = ""
        self.notBefore = nil
        self.notAfter = nil
        self.sha256 = ""
        self.key = ""
        self.appleOIDs = []
        self.knownAs = nil
        self.isTrustedRoot = false
        self.error = error
    }

    /// Whether the certificate is valid at `time` by its dates alone.
    package func isWithinValidity(at time: Date) -> Bool {
        guard let notBefore, let notAfter else { return false }
        return notBefore <= time && time <= notAfter
    }
}
